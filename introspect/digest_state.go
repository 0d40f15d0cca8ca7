package introspect

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// SequenceState is where a sequence stands: what nextval returns next. A migration that sets it
// back (setval, ALTER SEQUENCE ... RESTART) makes the rows inserted after it reuse values.
type SequenceState struct {
	// Sequence is the schema-qualified name, as in a [Snapshot]'s identities.
	Sequence string `json:"sequence"`
	// LastValue and IsCalled are the sequence's own (SELECT last_value, is_called FROM it).
	LastValue int64 `json:"last_value"`
	IsCalled  bool  `json:"is_called"`
	// Increment is the sequence's increment (negative for a descending one).
	Increment int64 `json:"increment"`
}

// Next is the value nextval returns next.
func (s SequenceState) Next() int64 {
	if s.IsCalled {
		return s.LastValue + s.Increment
	}
	return s.LastValue
}

// MovedBack reports whether s stands before prev, the same sequence earlier: its next value is
// one prev had already handed out (against the direction of its increment).
func (s SequenceState) MovedBack(prev SequenceState) bool {
	if s.Increment < 0 {
		return s.Next() > prev.Next()
	}
	return s.Next() < prev.Next()
}

// Sequence returns the state of the sequence named name (schema-qualified), if d has it.
func (d *Digest) Sequence(name string) (SequenceState, bool) {
	i, ok := slices.BinarySearchFunc(d.Sequences, name, func(s SequenceState, n string) int { return cmp.Compare(s.Sequence, n) })
	if !ok {
		return SequenceState{}, false
	}
	return d.Sequences[i], true
}

// LargeObject is one large object of the database: its OID, size and content hash.
type LargeObject struct {
	OID uint32 `json:"oid"`
	// Bytes is its size.
	Bytes int64 `json:"bytes"`
	// Hash is the md5 (hex) of the md5s of its pages in order.
	Hash string `json:"hash"`
}

// largeObjectsQuery reads every large object: OID, size, hash (see [LargeObject]). It runs on
// the reader role's session, which pg_read_all_data lets read pg_largeobject.
const largeObjectsQuery = `SELECT m.oid::pg_catalog.text,
       coalesce((SELECT pg_catalog.sum(pg_catalog.length(l.data)) FROM pg_largeobject l WHERE l.loid OPERATOR(pg_catalog.=) m.oid), 0)::pg_catalog.text,
       coalesce((SELECT pg_catalog.md5(pg_catalog.string_agg(pg_catalog.md5(l.data), ''::pg_catalog.text ORDER BY l.pageno))
                   FROM pg_largeobject l WHERE l.loid OPERATOR(pg_catalog.=) m.oid), '')
  FROM pg_largeobject_metadata m`

// sequenceQuery reads one sequence's state, tagged with its index in the list: %[1]d the index,
// %[2]s the quoted name. Reading a sequence relation runs no code.
const sequenceQuery = `SELECT %[1]d, s.last_value::pg_catalog.text, s.is_called::pg_catalog.text FROM %[2]s AS s`

// sequencesQuery reads the state of every sequence of seqs in one query.
func sequencesQuery(seqs []digestTable) string {
	parts := make([]string, len(seqs))
	for i, s := range seqs {
		parts[i] = fmt.Sprintf(sequenceQuery, i, pgx.Identifier{s.schema, s.name}.Sanitize())
	}
	return strings.Join(parts, "\nUNION ALL\n")
}

// readState reads the results of largeObjectsQuery (when los) and, when seqs is not empty, of
// sequencesQuery into d.
func readState(res *pgconn.MultiResultReader, d *Digest, los bool, seqs []digestTable) error {
	if los {
		if err := readLargeObjects(res, d); err != nil {
			return err
		}
	}
	if len(seqs) == 0 {
		return nil
	}
	if !res.NextResult() {
		return fmt.Errorf("digest: reading sequences: %w", res.Close())
	}
	rr := res.ResultReader()
	for rr.NextRow() {
		v := rr.Values()
		i, err1 := strconv.Atoi(string(v[0]))
		last, err2 := strconv.ParseInt(string(v[1]), 10, 64)
		if err1 != nil || err2 != nil || i < 0 || i >= len(seqs) {
			rr.Close() //nolint:errcheck // the parse error is the one to return
			return fmt.Errorf("digest: reading sequences: unexpected row %q", v)
		}
		s := seqs[i]
		d.Sequences = append(d.Sequences, SequenceState{Sequence: qualify(s.schema, s.name), LastValue: last, IsCalled: string(v[2]) == "true", Increment: s.increment})
	}
	if _, err := rr.Close(); err != nil {
		return fmt.Errorf("digest: reading sequences: %w", err)
	}
	slices.SortFunc(d.Sequences, func(a, b SequenceState) int { return cmp.Compare(a.Sequence, b.Sequence) })
	return nil
}

// readLargeObjects reads the result of largeObjectsQuery into d.
func readLargeObjects(res *pgconn.MultiResultReader, d *Digest) error {
	if !res.NextResult() {
		return fmt.Errorf("digest: reading large objects: %w", res.Close())
	}
	rr := res.ResultReader()
	for rr.NextRow() {
		v := rr.Values()
		oid, err1 := strconv.ParseUint(string(v[0]), 10, 32)
		n, err2 := strconv.ParseInt(string(v[1]), 10, 64)
		if err1 != nil || err2 != nil {
			rr.Close() //nolint:errcheck // the parse error is the one to return
			return fmt.Errorf("digest: reading large objects: unexpected row %q", v)
		}
		d.LargeObjects = append(d.LargeObjects, LargeObject{OID: uint32(oid), Bytes: n, Hash: string(v[2])})
	}
	if _, err := rr.Close(); err != nil {
		return fmt.Errorf("digest: reading large objects: %w", err)
	}
	slices.SortFunc(d.LargeObjects, func(a, b LargeObject) int { return cmp.Compare(a.OID, b.OID) })
	return nil
}
