package bodies

// Interrupted is interrupted, for the test of a session terminated between two statements.
var Interrupted = interrupted
