// Package yamltexttest checks the contract of ledgercheck's YAML errors in tests and fuzz
// targets: an input error whose message starts with "FILE:LINE: " (or "FILE:LINE:COL: "), LINE a
// line of the file.
package yamltexttest

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/fault"
)

// CheckError fails the test unless err, returned for data read as file, is an input error that
// starts with "file:LINE: " where LINE is a line of data.
func CheckError(t testing.TB, file string, data []byte, err error) {
	t.Helper()
	if fault.KindOf(err) != fault.KindInput {
		t.Fatalf("error %q is not an input error", err)
	}
	m := regexp.MustCompile(`^` + regexp.QuoteMeta(file) + `:(\d+):(?:\d+:)? \S`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("error %q does not start with %s:LINE:", err, file)
	}
	n, _ := strconv.Atoi(m[1])
	if lines := strings.Count(string(data), "\n") + 1; n < 1 || n > lines {
		t.Fatalf("error %q names line %d of a %d-line file", err, n, lines)
	}
}
