package scratch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Observer watches the statements of a [Script] while [Database.Exec] (or [ExecScript]) runs
// them: the lock trace (internal/locks) reads, on a session of its own, what each statement
// holds. It only watches: its methods return nothing, and nothing it does changes how the
// script runs or what Exec returns.
//
// A statement's locks last until its transaction ends, and an autocommitted statement's
// transaction ends with the statement. So an observed statement is sent with the extended
// protocol, Parse, Bind, Execute and a Flush, and its Sync (which ends the implicit transaction
// of an autocommitted statement, exactly where the simple protocol's Query message would have
// ended it) only after [Observer.Executed] returned: the transaction, and every lock the
// statement took, is still open while the observer reads. Nothing else changes: the statement
// runs alone in its implicit transaction, outside any transaction block (so LOCK TABLE fails and
// CREATE INDEX CONCURRENTLY runs as under psql), and the file's own BEGIN and COMMIT are its
// own. The observer costs two round trips per statement besides its own reads.
type Observer interface {
	// Connected is called once the session that runs the script is connected, before its first
	// statement, with that session's backend process id.
	Connected(ctx context.Context, pid uint32)
	// Executed is called after statement i of the script (an index into Script.Statements)
	// completed, before its transaction can end: tag is its command tag, took how long it ran
	// (from sending it to its completion), and idle whether the session was outside a
	// transaction block when it started.
	Executed(ctx context.Context, i int, tag string, took time.Duration, idle bool)
	// Done is called once, when the script has ended (every statement's transaction ended, or
	// one failed and the session's transaction rolled back or will when the session closes),
	// with whether the session is outside a transaction block.
	Done(ctx context.Context, idle bool)
}

// execObserved runs one statement on conn for [execStatements] the way its doc says, calling
// obs while its transaction is open. It returns what conn.Exec would.
func execObserved(ctx context.Context, conn *pgx.Conn, i int, st Statement, obs Observer) (pgconn.CommandTag, error) {
	pc := conn.PgConn()
	idle := pc.TxStatus() == 'I'
	t0 := time.Now()
	p := pc.StartPipeline(ctx)
	p.SendQueryParams(st.Text, nil, nil, nil, nil)
	p.SendFlushRequest()
	if err := p.Flush(); err != nil {
		p.Close() //nolint:errcheck // the flush's error is the one to return
		return pgconn.CommandTag{}, err
	}
	tag, err := pipelineResult(p)
	if err == nil {
		obs.Executed(ctx, i, tag.String(), time.Since(t0), idle)
	}
	serr := p.Sync()
	if serr == nil {
		serr = pipelineSynced(p)
	}
	cerr := p.Close()
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	if serr != nil {
		return pgconn.CommandTag{}, serr
	}
	return tag, cerr
}

// pipelineResult reads the result of the statement p sent: its command tag (rows are read and
// dropped, as conn.Exec drops them) or its error.
func pipelineResult(p *pgconn.Pipeline) (pgconn.CommandTag, error) {
	res, err := p.GetResults()
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	rr, ok := res.(*pgconn.ResultReader)
	if !ok {
		return pgconn.CommandTag{}, fmt.Errorf("pipeline: unexpected result %T", res)
	}
	return rr.Close()
}

// pipelineSynced reads up to the ReadyForQuery that answers p's Sync. An error the server
// reports there is the statement's: the commit of its implicit transaction failed (a deferred
// constraint), which the simple protocol reports as the statement's error too.
func pipelineSynced(p *pgconn.Pipeline) error {
	for {
		res, err := p.GetResults()
		switch {
		case err != nil:
			return err
		case res == nil:
			return errors.New("pipeline: no ReadyForQuery after Sync")
		}
		if _, ok := res.(*pgconn.PipelineSync); ok {
			return nil
		}
	}
}
