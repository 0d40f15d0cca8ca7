package observe

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
)

// The personas' requests go to the server in one pipeline per round: every statement of a
// persona's transaction is sent at once, in segments that end with a Sync, so that a statement
// the server rejects (permission denied, a policy's violation) skips only the rest of its own
// segment, and the next segment rolls back to the savepoint and goes on. One round trip per
// round, whatever the number of actions.

// result is one statement's result: its rows (text values; nil for NULL), its command tag, or
// the server's error; ran is false for a statement skipped after an error earlier in its
// segment.
type result struct {
	rows [][]*string
	tag  string
	err  *pgconn.PgError
	ran  bool
}

// ok reports whether the statement ran without error.
func (r result) ok() bool { return r.ran && r.err == nil }

// value is the text of row i, column j ("" for NULL or absent).
func (r result) value(i, j int) string {
	if i >= len(r.rows) || j >= len(r.rows[i]) || r.rows[i][j] == nil {
		return ""
	}
	return *r.rows[i][j]
}

// runSegments sends segs (each a list of statements, each followed by a Sync) in one pipeline
// on pc and returns each statement's result. An error that is not the server's rejection of a
// statement (a lost connection, a cancelled context) is returned.
func runSegments(ctx context.Context, pc *pgconn.PgConn, segs [][]string) ([][]result, error) {
	pl := pc.StartPipeline(ctx)
	for _, seg := range segs {
		for _, sql := range seg {
			pl.SendQueryParams(sql, nil, nil, nil, nil)
		}
		pl.SendPipelineSync()
	}
	if err := pl.Flush(); err != nil {
		pl.Close()
		return nil, err
	}
	out := make([][]result, len(segs))
	for i, seg := range segs {
		out[i] = make([]result, len(seg))
		for j := range seg {
			r, stop, err := next(pl)
			if err != nil {
				pl.Close()
				return nil, err
			}
			out[i][j] = r
			if stop {
				break // the rest of the segment was skipped
			}
		}
		if err := awaitSync(pl); err != nil {
			pl.Close()
			return nil, err
		}
	}
	if err := pl.Close(); err != nil {
		return nil, err
	}
	return out, nil
}

// next reads one statement's result; stop says the server rejected it (the rest of its segment
// is skipped).
func next(pl *pgconn.Pipeline) (result, bool, error) {
	res, err := pl.GetResults()
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return result{err: pe, ran: true}, true, nil
	}
	if err != nil {
		return result{}, false, err
	}
	rr, ok := res.(*pgconn.ResultReader)
	if !ok {
		return result{}, false, fmt.Errorf("observing: unexpected pipeline result %T", res)
	}
	var r result
	r.ran = true
	for rr.NextRow() {
		vals := rr.Values()
		row := make([]*string, len(vals))
		for k, v := range vals {
			if v != nil {
				s := string(v)
				row[k] = &s
			}
		}
		r.rows = append(r.rows, row)
	}
	tag, err := rr.Close()
	if errors.As(err, &pe) {
		return result{err: pe, ran: true}, true, nil
	}
	if err != nil {
		return result{}, false, err
	}
	r.tag = tag.String()
	return r, false, nil
}

// awaitSync reads up to the segment's Sync.
func awaitSync(pl *pgconn.Pipeline) error {
	for {
		res, err := pl.GetResults()
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			continue // a statement after the one that failed, reported by the server all the same
		}
		if err != nil {
			return err
		}
		switch res := res.(type) {
		case *pgconn.PipelineSync:
			return nil
		case *pgconn.ResultReader:
			if _, err := res.Close(); err != nil && !errors.As(err, &pe) {
				return err
			}
		case nil:
			return errors.New("observing: the pipeline ended before its sync")
		}
	}
}
