package scratch

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
)

// What ledgercheck's parser read is what the server runs. Two things hold it:
//
//   - each statement of a Script goes to the server in a message of its own through the
//     extended protocol (Parse, Bind, Execute, Sync), which the server accepts only when it
//     reads the text as one statement: a statement whose text the server splits otherwise than
//     the parser (a string the server ends earlier) is refused before any of it runs, where the
//     simple protocol would have run every statement it found;
//   - the settings under which the server reads SQL as the parser does are checked when the
//     session starts and after every statement: standard_conforming_strings and
//     client_encoding, which the server reports (ParameterStatus) whenever they change, by any
//     means (SET, set_config() in a function, a trigger, ALTER ROLE ... SET for the next
//     session), so the check costs no round trip. A statement that left one changed ends the
//     script there, before the server reads the next one.
//
// Either is a [*SelfInflicted] at the statement: a finding, not an environment error.

// readingStartup are the settings under which the server reads SQL as ledgercheck's parser does,
// as startup parameters of every session of the install role: a startup parameter outranks
// ALTER ROLE and ALTER DATABASE ... SET, so an earlier script cannot make a later session start
// with another reading.
var readingStartup = map[string]string{
	"standard_conforming_strings": "on",
	"client_encoding":             "UTF8",
	"backslash_quote":             "safe_encoding",
	"transform_null_equals":       "off",
}

// readingParams are the reported settings under which the server reads a statement's text as
// ledgercheck's parser does, with the values it reads with.
var readingParams = []struct{ name, want string }{
	{"standard_conforming_strings", "on"},
	{"client_encoding", "UTF8"},
}

// misread names the reported setting of pc's session that is not the value the parser reads
// with ("standard_conforming_strings = off"), or "".
func misread(pc *pgconn.PgConn) string {
	for _, p := range readingParams {
		if v := pc.ParameterStatus(p.name); v != p.want {
			return fmt.Sprintf("%s = %s", p.name, v)
		}
	}
	return ""
}

// execText runs one statement's text in a message of its own (the extended protocol, unnamed
// statement, no parameters): the server refuses a text it reads as several statements.
func execText(ctx context.Context, pc *pgconn.PgConn, text string) (pgconn.CommandTag, error) {
	return pc.ExecParams(ctx, text, nil, nil, nil, nil).Close()
}

// severalStatements turns the server's refusal of a text it reads as more than one statement
// into what it means here.
func severalStatements(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42601" && pe.Message == "cannot insert multiple commands into a prepared statement" {
		return &SelfInflicted{Msg: "the server reads more than one statement here, where ledgercheck's parser reads one (has a setting changed how the server reads strings?), so none of it ran: ledgercheck runs only the statements it read"}
	}
	return err
}

// readingChanged is the failure of a statement after which the session's reading differs.
func readingChanged(setting string) *SelfInflicted {
	return &SelfInflicted{Msg: "it set " + setting + ", under which the server reads the statements after it otherwise than ledgercheck's parser (strings end elsewhere, so statements can hide in them): ledgercheck runs none of them"}
}

// startedMisread is the failure of a script whose session started with a reading that differs
// (an ALTER ROLE or ALTER DATABASE ... SET of an earlier script), at its first statement.
func startedMisread(setting string) *SelfInflicted {
	return &SelfInflicted{Msg: "its session started with " + setting + " (an ALTER ROLE or ALTER DATABASE ... SET of an earlier install?), under which the server reads statements otherwise than ledgercheck's parser: ledgercheck runs none of them"}
}
