package locks

import (
	"slices"
	"strings"
)

// Mode is a table lock mode, numbered as PostgreSQL numbers them (lockdefs.h): 1 ACCESS SHARE
// to 8 ACCESS EXCLUSIVE.
type Mode int

// The table lock modes.
const (
	AccessShare Mode = iota + 1
	RowShare
	RowExclusive
	ShareUpdateExclusive
	Share
	ShareRowExclusive
	Exclusive
	AccessExclusive
)

// modeNames are pg_locks.mode's names of the modes.
var modeNames = map[string]Mode{
	"AccessShareLock": AccessShare, "RowShareLock": RowShare, "RowExclusiveLock": RowExclusive,
	"ShareUpdateExclusiveLock": ShareUpdateExclusive, "ShareLock": Share,
	"ShareRowExclusiveLock": ShareRowExclusive, "ExclusiveLock": Exclusive, "AccessExclusiveLock": AccessExclusive,
}

// ParseMode reads a mode as pg_locks names it ("ShareRowExclusiveLock") or as SQL writes it
// ("SHARE ROW EXCLUSIVE", any case); 0 when it is neither.
func ParseMode(s string) Mode {
	if m, ok := modeNames[s]; ok {
		return m
	}
	for m := AccessShare; m <= AccessExclusive; m++ {
		if strings.EqualFold(strings.Join(strings.Fields(s), " "), m.String()) {
			return m
		}
	}
	return 0
}

// String is the mode as SQL writes it: "SHARE ROW EXCLUSIVE".
func (m Mode) String() string {
	switch m {
	case AccessShare:
		return "ACCESS SHARE"
	case RowShare:
		return "ROW SHARE"
	case RowExclusive:
		return "ROW EXCLUSIVE"
	case ShareUpdateExclusive:
		return "SHARE UPDATE EXCLUSIVE"
	case Share:
		return "SHARE"
	case ShareRowExclusive:
		return "SHARE ROW EXCLUSIVE"
	case Exclusive:
		return "EXCLUSIVE"
	case AccessExclusive:
		return "ACCESS EXCLUSIVE"
	}
	return "unknown lock mode"
}

// conflicts is PostgreSQL's table of conflicting lock modes (the documentation's "Explicit
// Locking"; lock.c's LockConflicts): the modes each mode conflicts with, as a bit set.
var conflicts = map[Mode]uint16{
	AccessShare:          bits(AccessExclusive),
	RowShare:             bits(Exclusive, AccessExclusive),
	RowExclusive:         bits(Share, ShareRowExclusive, Exclusive, AccessExclusive),
	ShareUpdateExclusive: bits(ShareUpdateExclusive, Share, ShareRowExclusive, Exclusive, AccessExclusive),
	Share:                bits(RowExclusive, ShareUpdateExclusive, ShareRowExclusive, Exclusive, AccessExclusive),
	ShareRowExclusive:    bits(RowExclusive, ShareUpdateExclusive, Share, ShareRowExclusive, Exclusive, AccessExclusive),
	Exclusive:            bits(RowShare, RowExclusive, ShareUpdateExclusive, Share, ShareRowExclusive, Exclusive, AccessExclusive),
	AccessExclusive:      bits(AccessShare, RowShare, RowExclusive, ShareUpdateExclusive, Share, ShareRowExclusive, Exclusive, AccessExclusive),
}

func bits(ms ...Mode) uint16 {
	var b uint16
	for _, m := range ms {
		b |= 1 << m
	}
	return b
}

// Conflicts reports whether m conflicts with o: a session holding m makes one asking for o
// wait.
func (m Mode) Conflicts(o Mode) bool { return conflicts[m]&(1<<o) != 0 }

// Covers reports whether holding m blocks at least what holding o blocks: every mode o
// conflicts with, m conflicts with too. A lock of mode o taken while m is held changes nothing
// for other sessions.
func (m Mode) Covers(o Mode) bool { return conflicts[m]&conflicts[o] == conflicts[o] }

// BlocksWrites reports whether m stops other sessions' INSERT, UPDATE and DELETE (which take
// ROW EXCLUSIVE): SHARE and every stronger mode.
func (m Mode) BlocksWrites() bool { return m.Conflicts(RowExclusive) }

// BlocksReads reports whether m stops other sessions' plain SELECT (ACCESS SHARE): ACCESS
// EXCLUSIVE alone.
func (m Mode) BlocksReads() bool { return m.Conflicts(AccessShare) }

// Blocks says in words what other sessions cannot do on the table while m is held.
func (m Mode) Blocks() string {
	switch m {
	case AccessShare:
		return "schema changes (ALTER TABLE, DROP, TRUNCATE, VACUUM FULL, REFRESH MATERIALIZED VIEW)"
	case RowShare:
		return "EXCLUSIVE and ACCESS EXCLUSIVE locks (schema changes, REFRESH MATERIALIZED VIEW)"
	case RowExclusive:
		return "index and trigger creation and schema changes (CREATE INDEX, CREATE TRIGGER, ALTER TABLE)"
	case ShareUpdateExclusive:
		return "VACUUM, ANALYZE, CREATE INDEX CONCURRENTLY and schema changes"
	case Share, ShareRowExclusive:
		return "INSERT, UPDATE and DELETE"
	case Exclusive:
		return "every write and row lock (INSERT, UPDATE, DELETE, SELECT ... FOR UPDATE)"
	case AccessExclusive:
		return "every read and write (SELECT, INSERT, UPDATE, DELETE)"
	}
	return "unknown"
}

// strongest returns the modes of ms that no other mode of ms covers (one, but for SHARE and
// SHARE UPDATE EXCLUSIVE together), strongest first.
func strongest(ms []Mode) []Mode {
	var out []Mode
	for i := AccessExclusive; i >= AccessShare; i-- {
		if !slices.Contains(ms, i) {
			continue
		}
		covered := false
		for _, o := range out {
			if o.Covers(i) {
				covered = true
			}
		}
		if !covered {
			out = append(out, i)
		}
	}
	return out
}
