// Package reporttest has test helpers for ledgercheck's output formats.
package reporttest

import "strings"

// WorkflowCommands returns the workflow commands a GitHub Actions runner would take from log:
// the lines (ended by LF or CR) that start with "::" after white space or hold "##[", outside
// ::stop-commands::TOKEN ... ::TOKEN:: blocks, in which the runner interprets nothing.
func WorkflowCommands(log string) []string {
	var cmds []string
	stop := ""
	for _, line := range strings.FieldsFunc(log, func(r rune) bool { return r == '\n' || r == '\r' }) {
		t := strings.TrimLeft(line, " \t")
		switch {
		case stop != "":
			if t == "::"+stop+"::" {
				stop = ""
			}
		case strings.HasPrefix(t, "::stop-commands::"):
			stop = strings.TrimPrefix(t, "::stop-commands::")
		case strings.HasPrefix(t, "::"), strings.Contains(t, "##["):
			cmds = append(cmds, t)
		}
	}
	return cmds
}

// SARIF is the part of a SARIF log the tests read: each result's rule, message and locations.
type SARIF struct {
	Runs []struct {
		Results []struct {
			RuleID    string `json:"ruleId"`
			Message   struct{ Text string }
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI       string `json:"uri"`
						URIBaseID string `json:"uriBaseId"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine int `json:"startLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}
