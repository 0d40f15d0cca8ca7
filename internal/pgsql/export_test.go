package pgsql

// SetPath selects p for every later parse and returns the path it replaces.
func SetPath(p Path) Path { return Path(path.Swap(int32(p))) }
