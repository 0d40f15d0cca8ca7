package observe

import (
	"encoding/json"
	"maps"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/fill"
)

// A persona is a client of the Data API: anon (the public anon key, no user), or a signed-in
// user, each with what a real client controls: its own user_metadata (a user edits it, GoTrue
// writes it to his row of auth.users, and it comes back in the next JWT), any request header and
// cookie, and the rows it chooses to insert.

// The users of auth.users the observation adds: A and B sign in; C is another user, who owns
// rows and never signs in; D signs in and owns no row (a user who has just signed up), for the
// enrolments a default of his metadata fills (metadataDefaults).
const (
	UserA = "00000000-0000-4000-a000-00000000000a"
	UserB = "00000000-0000-4000-a000-00000000000b"
	UserC = "00000000-0000-4000-a000-00000000000c"
	UserD = "00000000-0000-4000-a000-00000000000d"
)

// Persona is one client.
type Persona struct {
	// Name is how reports name it: "anon", "user A", "user B", with what it sets in parentheses.
	Name string
	// Role is the role PostgREST switches to: anon or authenticated.
	Role string
	// ID is the user's id (the JWT's sub), "" for anon.
	ID string
	// Metadata is the user's user_metadata, Headers the request's headers (names lower-cased),
	// Cookies its cookies.
	Metadata map[string]string
	Headers  map[string]string
	Cookies  map[string]string
	// Factor is whether the user signed in with a second factor he enrolled himself: his JWT's
	// aal is aal2 and its amr lists totp (secondFactor).
	Factor bool
}

var (
	anon  = Persona{Name: "anon", Role: "anon"}
	userA = Persona{Name: "user A", Role: "authenticated", ID: UserA}
	userB = Persona{Name: "user B", Role: "authenticated", ID: UserB}
	userD = Persona{Name: "user D", Role: "authenticated", ID: UserD}
)

// Personas are the clients every observation acts as.
func Personas() []Persona { return []Persona{anon, userA, userB} }

// signedIn reports whether the persona is a signed-in user.
func (p Persona) signedIn() bool { return p.ID != "" }

// other is the signed-in user whose rows this one may try to reach: B for A, A for B.
func (p Persona) other() string {
	if p.ID == UserA {
		return UserB
	}
	return UserA
}

// email is the user's address in auth.users and the JWT.
func email(id string) string { return fill.UserEmail(id) }

// claims is the JWT's claims PostgREST sets in request.jwt.claims, as JSON.
func (p Persona) claims() string {
	c := map[string]any{"role": p.Role, "iss": "supabase"}
	if p.signedIn() {
		md := map[string]any{}
		for k, v := range p.Metadata {
			md[k] = v
		}
		c["sub"], c["aud"], c["email"] = p.ID, "authenticated", email(p.ID)
		c["user_metadata"] = md
		c["app_metadata"] = map[string]any{"provider": "email", "providers": []string{"email"}}
		c["is_anonymous"] = false
		// As GoTrue issues them: aal1 after a password; aal2, and totp first in amr, after
		// the user also verified a factor he enrolled.
		c["aal"], c["amr"] = "aal1", []map[string]any{{"method": "password", "timestamp": signInTime}}
		if p.Factor {
			c["aal"], c["amr"] = "aal2", []map[string]any{{"method": "totp", "timestamp": signInTime}, {"method": "password", "timestamp": signInTime}}
		}
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// signInTime is when the JWT's amr says the user signed in: a fixed time (the observation does
// not try the times a policy may compare it with).
const signInTime = 1796601600

// headers is request.headers, as JSON: what a browser sends, and the persona's own.
func (p Persona) headers() string {
	h := map[string]string{"accept": "application/json", "user-agent": "ledgercheck-observer", "x-client-info": "supabase-js/2"}
	if p.signedIn() {
		h["authorization"] = "Bearer <the user's JWT>"
	}
	maps.Copy(h, p.Headers)
	b, _ := json.Marshal(h)
	return string(b)
}

// cookies is request.cookies, as JSON: the persona's own.
func (p Persona) cookies() string {
	if p.Cookies == nil {
		return "{}"
	}
	b, _ := json.Marshal(p.Cookies)
	return string(b)
}

// setsClientValue reports whether the persona sets a value the client controls.
func (p Persona) setsClientValue() bool {
	return p.Metadata != nil || p.Headers != nil || p.Cookies != nil || p.Factor
}

// with returns the persona setting the client-controlled value c to v.
func (p Persona) with(c controlled, v string) Persona {
	q := p
	set := func(m map[string]string, key string) map[string]string {
		m = maps.Clone(m)
		if m == nil {
			m = map[string]string{}
		}
		m[key] = v
		return m
	}
	switch c.Kind {
	case header:
		q.Headers = set(p.Headers, strings.ToLower(c.Key))
		q.Name = p.Name + " (header " + strings.ToLower(c.Key) + ": " + v + ")"
	case cookie:
		q.Cookies = set(p.Cookies, c.Key)
		q.Name = p.Name + " (cookie " + c.Key + "=" + v + ")"
	case secondFactor:
		q.Factor = true
		q.Name = p.Name + " (a second factor: aal2)"
	default:
		q.Metadata = set(p.Metadata, c.Key)
		q.Name = p.Name + " (user_metadata." + c.Key + " = " + v + ")"
	}
	return q
}

// base is the persona's name without what it sets ("user A" of "user A (header x: 1)").
func (p Persona) base() string {
	name, _, _ := strings.Cut(p.Name, " (")
	return name
}
