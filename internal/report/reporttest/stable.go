package reporttest

import "github.com/ledgercheck/ledgercheck/internal/report"

// Stable strips from r what changes from run to run and machine to machine, for goldens: every
// duration, and the servers the run used (their version is the machine's: `make test` and
// `make test-pg17` check the same goldens on PostgreSQL 15 and 17). It returns r.
func Stable(r *report.Report) *report.Report {
	r.Duration = 0
	for i := range r.Phases {
		r.Phases[i].Duration = 0
	}
	for i := range r.Sidecars {
		r.Sidecars[i].Duration = 0
	}
	r.Servers = nil
	return r
}
