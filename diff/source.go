package diff

import "fmt"

// Source is what a variant's migration declares, as plain data: the caller reads it from its
// parser (ledgercheck's internal/parity, from internal/pgsql), so that diff links none.
type Source struct {
	// Name is the file as the user named it.
	Name string
	// Signatures are the file's top-level CREATE FUNCTION and CREATE PROCEDURE signatures, in
	// file order: pg_proc keeps no typmod, so the declared types are compared too.
	Signatures []Signature
	// VectorTypes are the pgvector types with a dimension anywhere in the file.
	VectorTypes []VectorType
}

// Signature is a function's signature as declared.
type Signature struct {
	// Name is the function's schema-qualified name as SQL writes it: public.match_thoughts.
	Name string
	// Params are the parameters in order.
	Params []Param
	// Returns is the declared result type ("" for RETURNS TABLE and procedures), written at
	// ReturnsPos.
	Returns    string
	ReturnsPos Position
}

// Param is one declared parameter.
type Param struct {
	// Name is the parameter's name ("" when unnamed).
	Name string
	// Mode is in, out, inout, variadic or table.
	Mode string
	// Type is the type as declared, typmod included, and Pos where it is written.
	Type string
	Pos  Position
}

// inputTypes returns the types of the parameters that make up the function's identity (in,
// inout and variadic).
func (s Signature) inputTypes() []string {
	var out []string
	for _, p := range s.Params {
		switch p.Mode {
		case "in", "inout", "variadic":
			out = append(out, p.Type)
		}
	}
	return out
}

// VectorType is a pgvector type with a dimension: vector(N), halfvec(N) or sparsevec(N).
type VectorType struct {
	Type string
	Dim  int
	// Pos is where the dimension is written.
	Pos Position
	// Statement names what the top-level statement holding it creates or acts on ("function
	// public.f", "statement DO"); "" names the file.
	Statement string
}

// Position is a 1-based line and column (in Unicode code points) in a named file.
type Position struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
}

// String renders the position as file:line:col.
func (p Position) String() string {
	if p.File == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}
