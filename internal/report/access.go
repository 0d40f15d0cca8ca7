package report

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Access is one entry of an audit phase's access matrix: what one persona (anon, a signed-in
// user) could do with one object the file made reachable, as the access observation saw it
// (internal/observe), under one privilege model.
type Access struct {
	// Model is the privilege model of the install it was observed on ("new-defaults",
	// "old-defaults").
	Model string `json:"model"`
	// Object is what the persona acted on: "table public.t", "view public.v", "function
	// public.f(text)".
	Object string `json:"object"`
	// Of is the relation whose rows Rows and Present count, when it is not Object: a view's
	// base table, the table a function read.
	Of string `json:"of,omitempty"`
	// Columns are the columns it read, when it could not read them all.
	Columns []string `json:"columns,omitempty"`
	// Persona is who acted: "anon", "user A", "user B", with what it set ("user A
	// (user_metadata.role = admin)").
	Persona string `json:"persona"`
	// Action is what it tried: select, insert, insert as another user, update, update another
	// user's rows, give a row to another user, delete, delete another user's rows, execute,
	// grant, "enrol, then select", select directly.
	Action string `json:"action"`
	// Value is the hostile or client-controlled value it sent, if any.
	Value string `json:"value,omitempty"`
	// Allowed says the request ran (a refused one has Error).
	Allowed bool `json:"allowed"`
	// Rows is how many rows it read, got back, or changed.
	Rows int64 `json:"rows"`
	// Present is how many rows Of (or Object) holds; -1 when not known (a function's result, a
	// view over several tables).
	Present int64 `json:"present"`
	// Own and Others are, of Rows, the persona's own and other users' rows, where ownership can
	// be seen (nil when it cannot).
	Own    *int64 `json:"own,omitempty"`
	Others *int64 `json:"others,omitempty"`
	// Error is the server's message when the request was refused.
	Error string `json:"error,omitempty"`
	// SideEffects are what else the request changed (and, for a function, read).
	SideEffects []SideEffect `json:"side_effects,omitempty"`
	// RanSQL says where a hostile value ran as SQL ("a quoted literal", ...), if it did.
	RanSQL string `json:"ran_sql,omitempty"`
}

// SideEffect is what a request did to a table besides its own rows.
type SideEffect struct {
	Table    string `json:"table"`
	Inserted int64  `json:"inserted,omitempty"`
	Updated  int64  `json:"updated,omitempty"`
	Deleted  int64  `json:"deleted,omitempty"`
	Read     int64  `json:"read,omitempty"`
	// Unwritable says the persona could not have made the change itself.
	Unwritable bool `json:"unwritable,omitempty"`
}

// matrix is an access matrix as the text and html formats show it: one row per object, persona
// and action that some persona could do under some privilege model (what was refused
// everywhere is left out, and a hostile value's row when it did no more than the plain
// request), a column per model.
type matrix struct {
	models []string
	rows   []matrixRow
}

// matrixRow is one row of a matrix: what was done, and what it gave under each model.
type matrixRow struct {
	object, persona, action string
	cells                   []matrixCell
}

// matrixCell is what a request gave under one model: its text ("" when nothing), and how far it
// reached.
type matrixCell struct {
	text  string
	reach reach
}

// reach is how far a request reached: beyond the persona's own rows (anon's anything, another
// user's rows, a side effect, SQL run), its own rows only, or rows whose owner cannot be seen
// (a signed-in user reading a team's or a shared table).
type reach int

const (
	reachBeyond reach = iota
	reachOwn
	reachUnowned
)

// accessMatrix is the matrix of an audit phase's access entries (nil when none shows access).
func accessMatrix(entries []Access) *matrix {
	m := &matrix{}
	plain := map[[4]string]string{} // object, persona, action, model -> the plain request's cell
	for _, a := range entries {
		if !slices.Contains(m.models, a.Model) {
			m.models = append(m.models, a.Model)
		}
		if a.Value == "" {
			plain[[4]string{a.Object, a.Persona, a.Action, a.Model}] = a.cell()
		}
	}
	index := map[[3]string]int{}
	for _, a := range entries {
		text := a.cell()
		if text == "" || a.Value != "" && a.RanSQL == "" && text == plain[[4]string{a.Object, a.Persona, a.Action, a.Model}] {
			continue
		}
		action := a.Action
		if a.Value != "" && a.Action != ActionGrant {
			action += " (" + shorten(a.Value, 40) + ")"
		}
		k := [3]string{a.Object, a.Persona, action}
		i, ok := index[k]
		if !ok {
			i = len(m.rows)
			index[k] = i
			m.rows = append(m.rows, matrixRow{object: a.Object, persona: a.Persona, action: action, cells: make([]matrixCell, len(m.models))})
		}
		m.rows[i].cells[slices.Index(m.models, a.Model)] = matrixCell{text: text, reach: a.reach()}
	}
	if len(m.rows) == 0 {
		return nil
	}
	return m
}

// reach is how far the request reached (see [reach]).
func (a Access) reach() reach {
	if a.Persona == "anon" || strings.HasPrefix(a.Persona, "anon ") || a.RanSQL != "" || a.Action == ActionGrant {
		return reachBeyond
	}
	for _, e := range a.SideEffects {
		if e.Inserted+e.Updated+e.Deleted > 0 {
			return reachBeyond
		}
	}
	switch {
	case a.Action == "insert" || a.Action == "update" || a.Action == "delete":
		return reachOwn // filtered on its own rows where they can be told apart
	case a.Others != nil && *a.Others > 0:
		return reachBeyond
	case a.Others != nil:
		return reachOwn
	case a.Action == "select" || a.Action == "execute":
		return reachUnowned
	}
	return reachBeyond
}

// ActionGrant is the action of an entry that granted a privilege on.
const ActionGrant = "grant"

// cell is what an entry shows in a matrix: the rows read or changed of the rows present, the
// persona's own and others', what else it changed, where a hostile value ran; "" when the
// request was refused or did nothing.
func (a Access) cell() string {
	if !a.Allowed {
		return ""
	}
	var parts []string
	switch {
	case a.Action == ActionGrant:
		parts = append(parts, "granted "+a.Value)
	case a.Rows > 0 && strings.HasPrefix(a.Action, "insert"):
		parts = append(parts, plural(a.Rows, "row")+" inserted")
	case a.Rows > 0 && a.Present >= 0:
		parts = append(parts, fmt.Sprintf("%d of %d", a.Rows, a.Present))
	case a.Rows > 0:
		parts = append(parts, plural(a.Rows, "row"))
	}
	if a.Own != nil && a.Others != nil && a.Rows > 0 {
		parts = append(parts, fmt.Sprintf("own %d, others %d", *a.Own, *a.Others))
	}
	if len(a.Columns) > 0 && a.Rows > 0 {
		parts = append(parts, "columns "+strings.Join(a.Columns, ", "))
	}
	var also []string
	for _, e := range a.SideEffects {
		if e.Inserted+e.Updated+e.Deleted > 0 {
			also = append(also, e.String())
		}
	}
	if len(also) > 2 {
		also = append(also[:2], fmt.Sprintf("%d more tables", len(also)-2))
	}
	if len(also) > 0 {
		parts = append(parts, "also "+strings.Join(also, ", "))
	}
	var read []string
	for _, e := range a.SideEffects {
		if e.Read > 0 && e.Inserted+e.Updated+e.Deleted == 0 {
			read = append(read, e.Table)
		}
	}
	if len(read) > 0 {
		parts = append(parts, "read "+strings.Join(read, ", "))
	}
	if a.RanSQL != "" {
		parts = append(parts, "ran as SQL in "+a.RanSQL)
	}
	return strings.Join(parts, "; ")
}

// plural is "1 row", "3 rows".
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// String is "+1 public.t" for rows inserted, "~2" updated, "-3" deleted.
func (e SideEffect) String() string {
	var parts []string
	for _, x := range []struct {
		n    int64
		sign string
	}{{e.Inserted, "+"}, {e.Updated, "~"}, {e.Deleted, "-"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%s%d", x.sign, x.n))
		}
	}
	return strings.Join(parts, " ") + " " + e.Table
}

// shorten shortens s to n characters.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
