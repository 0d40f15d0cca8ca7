package fill

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/ledgercheck/ledgercheck/introspect"
)

// Users are the users of auth.users that generated rows can belong to: the access observation's
// personas A, B and C (internal/observe). A column that names a user (see userColumn) takes
// their ids, row by row, when [Options.Users] has them; the caller adds them first ([AddUsers]).
var Users = []string{
	"00000000-0000-4000-a000-00000000000a",
	"00000000-0000-4000-a000-00000000000b",
	"00000000-0000-4000-a000-00000000000c",
}

// UserEmail is the e-mail address of the user of id in auth.users.
func UserEmail(id string) string {
	return "user-" + strings.ToLower(id[len(id)-1:]) + "@observe.ledgercheck.invalid"
}

// usersSQL adds users to auth.users; $1 is the ids, $2 the e-mails.
const usersSQL = `INSERT INTO auth.users (instance_id, id, aud, role, email, raw_app_meta_data, raw_user_meta_data, created_at, updated_at, is_anonymous)
SELECT '00000000-0000-0000-0000-000000000000'::pg_catalog.uuid, u.id, 'authenticated', 'authenticated', u.email,
       '{"provider": "email", "providers": ["email"]}'::pg_catalog.jsonb, '{}'::pg_catalog.jsonb, pg_catalog.now(), pg_catalog.now(), false
FROM ROWS FROM (pg_catalog.unnest($1::pg_catalog.uuid[]), pg_catalog.unnest($2::pg_catalog.text[])) AS u(id, email)
ON CONFLICT (id) DO NOTHING`

// AddUsers adds the users of ids to auth.users (those there already are left as they are), on
// admin, a superuser's session: pg_catalog-qualified SQL, and no object of a migration's can be
// on auth.users, which only its owner, supabase_auth_admin, could give a trigger, rule or
// policy.
func AddUsers(ctx context.Context, admin *pgx.Conn, ids []string) error {
	emails := make([]string, len(ids))
	for i, id := range ids {
		emails[i] = UserEmail(id)
	}
	if _, err := admin.Exec(ctx, usersSQL, ids, emails); err != nil {
		return fmt.Errorf("adding users to auth.users: %w", err)
	}
	return nil
}

// userColumn reports whether column c of t names a user the generated rows must give it: its
// default is auth.uid() (which has no user outside a request), or it is NOT NULL and a foreign
// key references auth.users with it alone.
func userColumn(t *introspect.Table, c introspect.Column) bool {
	if strings.Contains(c.Default, "auth.uid()") {
		return true
	}
	if !c.NotNull {
		return false
	}
	for _, k := range t.Constraints {
		if k.Type != "foreign key" {
			continue
		}
		if fk, ok := parseForeignKey(k.Definition); ok && fk.refSchema == "auth" && fk.table == "users" && len(fk.cols) == 1 && fk.cols[0] == c.Name {
			return true
		}
	}
	return false
}

// userLiterals are the SQL literals of users.
func userLiterals(users []string) []string {
	out := make([]string, len(users))
	for i, u := range users {
		out[i] = "'" + u + "'"
	}
	return out
}

// NeedsUsers reports whether a table of the plan gives a column the ids of [Options.Users]:
// the caller adds them to auth.users ([AddUsers]) before [Run].
func (p *Plan) NeedsUsers() bool {
	for _, t := range p.Tables {
		if len(t.users) > 0 {
			return true
		}
	}
	return false
}
