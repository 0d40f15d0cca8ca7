package locks

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Relation is a table (or materialized view) that existed before the file: the finding material.
type Relation struct {
	OID    uint32
	Schema string
	Name   string
	// Kind is pg_class.relkind: r (table), p (partitioned table), m (materialized view).
	Kind string
}

// Qualified is the relation's schema-qualified name as messages write it.
func (r Relation) Qualified() string { return quoteName(r.Schema) + "." + quoteName(r.Name) }

// Taken is a lock a statement took on a relation that existed before the file: new in its
// session's transaction (held after the statement, not before it).
type Taken struct {
	Rel  uint32
	Mode Mode
}

// Step is one statement of a traced script, as the trace saw it.
type Step struct {
	// Stmt is the statement's index in the script (scratch.Script.Statements).
	Stmt int
	// Tag is its command tag; Took how long it ran.
	Tag  string
	Took time.Duration
	// Idle: the session was outside a transaction block when it started, so it ran in a
	// transaction of its own (or began one: BEGIN).
	Idle bool
	// Taken are the locks it took on relations that existed before the file.
	Taken []Taken
	// Rewritten are the relations whose storage (relfilenode) changed in the transaction that
	// ended before this statement, first seen at this statement's read: see [Trace.rewrites].
	Rewritten []uint32
	// EndedInside: the statement ended its own transaction while it ran (COMMIT or ROLLBACK in a
	// procedure it called or in a DO block), so the locks it took before then were released
	// before the read after it: the trace cannot say what it held. Its session's transaction
	// began after the statement did (pg_stat_activity: xact_start later than query_start, where
	// the extended protocol's Parse begins it before the Execute that sets query_start).
	EndedInside bool
}

// Trace is the lock trace of one run of a script (the install, a rerun, the upgrade): a
// [scratch.Observer] that reads, after each statement and while its transaction is still open,
// the relation locks the statement's session holds, from pg_locks, on a privileged session of
// the same database (the rule of docs/architecture.md, "Privileged sessions": every function,
// operator and type pg_catalog's), and the storage of every relation that existed before the
// file, for rewrites. It never changes how the script runs: a read that fails leaves the trace
// incomplete ([Trace.Err]), never the install.
type Trace struct {
	// Run names the run: "install", "run 2", "upgrade from first_cut.sql".
	Run string

	conn  *pgx.Conn // the privileged session the reads run on, idle while the script runs
	mu    sync.Mutex
	pid   uint32
	rels  map[uint32]Relation
	oids  []uint32
	node  map[uint32]uint32 // relfilenode last seen of each relation
	held  map[Taken]bool    // locks held in the session's open transaction
	steps []Step
	reads int // reads that succeeded
	done  bool
	err   error
}

// NewTrace returns the trace of a run called run, reading on conn: a superuser session of the
// database the script runs in, which nothing else uses while the script runs.
func NewTrace(run string, conn *pgx.Conn) *Trace {
	return &Trace{Run: run, conn: conn}
}

// readTimeout bounds each read of the trace: a read waits for nothing the script can hold (it
// reads catalogs only), but should it ever, the install goes on and the trace says it is
// incomplete.
const readTimeout = 10 * time.Second

// relationsQuery reads the tables and materialized views that existed before the file: every
// one of the database's own schemas (the system's aside) whose oid is below the database's own.
// The database is a copy of a template, made after every object of the template, and the OID
// counter is the cluster's: what the file (or an earlier run of it, or its previous version)
// creates has a larger oid than the database, what the template held a smaller one.
const relationsQuery = `
SELECT c.oid::pg_catalog.int8, n.nspname::pg_catalog.text, c.relname::pg_catalog.text, c.relkind::pg_catalog.text,
       c.relfilenode::pg_catalog.int8
  FROM pg_catalog.pg_class c
  JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
 WHERE c.relkind OPERATOR(pg_catalog.=) ANY (ARRAY['r', 'p', 'm']::pg_catalog."char"[])
   AND c.relpersistence OPERATOR(pg_catalog.<>) 't'::pg_catalog."char"
   AND n.nspname OPERATOR(pg_catalog.<>) ALL (ARRAY['pg_catalog', 'information_schema']::pg_catalog.name[])
   AND c.oid OPERATOR(pg_catalog.<) (SELECT d.oid FROM pg_catalog.pg_database d
                                     WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database())`

// lockQuery reads what the session $1 holds on the relations $2 (granted relation locks), and
// a row 'ended' when its transaction began after its statement did ([Step.EndedInside]): from
// pg_stat_activity's function for that one session, without the view's joins, which a plan
// invalidated by the file's DDL would plan again at every read.
const lockQuery = `
SELECT 'lock'::pg_catalog.text, l.relation::pg_catalog.int8, l.mode
  FROM pg_catalog.pg_locks l
 WHERE l.pid OPERATOR(pg_catalog.=) $1::pg_catalog.int4
   AND l.locktype OPERATOR(pg_catalog.=) 'relation'::pg_catalog.text
   AND l.granted
   AND l.relation OPERATOR(pg_catalog.=) ANY ($2::pg_catalog.oid[])
UNION ALL
SELECT 'ended'::pg_catalog.text, 0::pg_catalog.int8, ''::pg_catalog.text
  FROM pg_catalog.pg_stat_get_activity($1::pg_catalog.int4) a
 WHERE a.xact_start OPERATOR(pg_catalog.>) a.query_start`

// stepQuery is lockQuery, and which of the relations $2 have another storage than $3 says
// (committed changes: a rewrite, a TRUNCATE). A change is seen once its transaction committed, so
// it is read only after one ended.
const stepQuery = lockQuery + `
UNION ALL
SELECT 'file'::pg_catalog.text, c.oid::pg_catalog.int8, c.relfilenode::pg_catalog.text
  FROM ROWS FROM (pg_catalog.unnest($2::pg_catalog.oid[]), pg_catalog.unnest($3::pg_catalog.oid[])) AS k(rel, node)
  JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) k.rel
 WHERE c.relfilenode OPERATOR(pg_catalog.<>) k.node`

// Connected reads the relations that existed before the file (scratch.Observer).
func (t *Trace) Connected(ctx context.Context, pid uint32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pid = pid
	t.rels, t.node, t.held = map[uint32]Relation{}, map[uint32]uint32{}, map[Taken]bool{}
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	rows, err := t.conn.Query(ctx, relationsQuery)
	if err != nil {
		t.fail(fmt.Errorf("reading the tables before the file: %w", err))
		return
	}
	for rows.Next() {
		var oid, node int64
		var r Relation
		if err := rows.Scan(&oid, &r.Schema, &r.Name, &r.Kind, &node); err != nil {
			rows.Close()
			t.fail(fmt.Errorf("reading the tables before the file: %w", err))
			return
		}
		r.OID = uint32(oid)
		t.rels[r.OID], t.node[r.OID] = r, uint32(node)
		t.oids = append(t.oids, r.OID)
	}
	if err := rows.Err(); err != nil {
		t.fail(fmt.Errorf("reading the tables before the file: %w", err))
	}
}

// Executed reads the locks statement i holds and the storage changes committed before it
// (scratch.Observer).
func (t *Trace) Executed(ctx context.Context, i int, tag string, took time.Duration, idle bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := Step{Stmt: i, Tag: tag, Took: took, Idle: idle}
	if idle { // the transaction before ended: what it held went with it
		clear(t.held)
	}
	locks, files, ended, ok := t.read(ctx, fmt.Sprintf("after statement %d", i+1), idle)
	if ok {
		st.Rewritten, st.EndedInside = files, ended
		for _, k := range locks {
			if t.held[k] {
				continue
			}
			t.held[k] = true
			st.Taken = append(st.Taken, k)
		}
	}
	t.steps = append(t.steps, st)
}

// Done reads the storage changes the script's last transaction committed (scratch.Observer).
func (t *Trace) Done(ctx context.Context, idle bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done = true
	if !idle || t.err != nil {
		return // a transaction left open rolls back when the session closes: it committed nothing
	}
	if _, files, _, ok := t.read(ctx, "after the last statement", true); ok && len(files) > 0 {
		t.steps = append(t.steps, Step{Stmt: -1, Rewritten: files})
	}
}

// read runs stepQuery, or lockQuery when no transaction ended since the last read (storage);
// when reads failed before, it does nothing. ended is lockQuery's 'ended' row.
func (t *Trace) read(ctx context.Context, when string, storage bool) (locks []Taken, files []uint32, ended, ok bool) {
	if t.err != nil || t.rels == nil {
		return nil, nil, false, false
	}
	nodes := make([]uint32, len(t.oids))
	for i, o := range t.oids {
		nodes[i] = t.node[o]
	}
	ctx, cancel := context.WithTimeout(ctx, readTimeout)
	defer cancel()
	q, args := lockQuery, []any{int32(t.pid), t.oids}
	if storage {
		q, args = stepQuery, append(args, nodes)
	}
	rows, err := t.conn.Query(ctx, q, args...)
	if err != nil {
		t.fail(fmt.Errorf("reading the locks %s: %w", when, err))
		return nil, nil, false, false
	}
	defer rows.Close()
	for rows.Next() {
		var kind, val string
		var oid int64
		if err := rows.Scan(&kind, &oid, &val); err != nil {
			t.fail(fmt.Errorf("reading the locks %s: %w", when, err))
			return nil, nil, false, false
		}
		switch kind {
		case "lock":
			if m := ParseMode(val); m != 0 {
				locks = append(locks, Taken{Rel: uint32(oid), Mode: m})
			}
		case "ended":
			ended = true
		case "file":
			var node uint32
			fmt.Sscan(val, &node) //nolint:errcheck // an oid printed by the server
			t.node[uint32(oid)] = node
			files = append(files, uint32(oid))
		}
	}
	if err := rows.Err(); err != nil {
		t.fail(fmt.Errorf("reading the locks %s: %w", when, err))
		return nil, nil, false, false
	}
	t.reads++
	return locks, files, ended, true
}

// fail records the first failed read: the trace is incomplete from there on (t.mu held).
func (t *Trace) fail(err error) {
	if t.err == nil {
		t.err = err
	}
}

// Err is the first read that failed (nil: the trace is complete).
func (t *Trace) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// Steps are the statements the trace saw, in order; a last Step with Stmt -1 holds the storage
// changes seen after the script ended.
func (t *Trace) Steps() []Step {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]Step(nil), t.steps...)
}

// Read is how many statements the trace read the locks of.
func (t *Trace) Read() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.reads
}

// Relations are the relations that existed before the file, by oid.
func (t *Trace) Relations() map[uint32]Relation {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.rels
}
