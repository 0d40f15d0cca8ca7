package rerun

// LoadCase and StableReport are the golden cases' loader and renderer, for the external test that
// runs the same cases through the gate.
var (
	LoadCase     = loadCase
	StableReport = stableReport
)
