package reporttest

import "github.com/ledgercheck/ledgercheck/internal/report"

// Stable strips from r what changes from run to run and machine to machine, for goldens: every
// duration (a lock table's too), the size on disk of a scratch database's table (its free space
// and visibility maps come and go with autovacuum), and the servers the run used (their version is the machine's: `make test` and `make test-pg17` check the same goldens
// on PostgreSQL 15 and 17). It returns r.
func Stable(r *report.Report) *report.Report {
	r.Duration = 0
	for i := range r.Phases {
		ph := &r.Phases[i]
		ph.Duration = 0
		for j := range ph.Locks {
			l := &ph.Locks[j]
			l.Duration, l.Held = 0, 0
			if l.Source != "production" {
				l.Bytes = 0
			}
		}
	}
	for i := range r.Sidecars {
		r.Sidecars[i].Duration = 0
	}
	r.Servers = nil
	return r
}
