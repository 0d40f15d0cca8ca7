package report

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
