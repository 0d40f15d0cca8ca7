package scratch

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"ledgercheck/internal/fault"
)

// scratchName matches the names of the databases scratch creates, and nothing else.
var scratchName = regexp.MustCompile(`^ledgercheck_(tpl[0-9]+_)?[0-9a-f]{12}$`)

const markPrefix = "ledgercheck scratch database; run "

// runMark is the comment put on every scratch database: which process on which host made it, when.
func runMark(now time.Time) string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s%s:%d at %s", markPrefix, host, os.Getpid(), now.UTC().Format(time.RFC3339))
}

// parseMark reads a run mark; ok is false for a comment that is not one.
func parseMark(comment string) (host string, pid int, at time.Time, ok bool) {
	rest, found := strings.CutPrefix(comment, markPrefix)
	if !found {
		return "", 0, time.Time{}, false
	}
	who, when, found := strings.Cut(rest, " at ")
	i := strings.LastIndexByte(who, ':')
	if !found || i < 0 {
		return "", 0, time.Time{}, false
	}
	pid, err1 := strconv.Atoi(who[i+1:])
	at, err2 := time.Parse(time.RFC3339, when)
	if err1 != nil || err2 != nil {
		return "", 0, time.Time{}, false
	}
	return who[:i], pid, at, true
}

// Cleanup drops the scratch databases that runs of ledgercheck left on the server at dsn (a run
// killed with SIGKILL cannot drop its own). Only databases whose name is exactly a scratch name
// and whose comment is a ledgercheck run mark are considered, and of those only the ones whose
// run is gone: made by a process of this host that no longer exists, or older than olderThan. It
// returns the names it dropped.
func Cleanup(ctx context.Context, dsn string, olderThan time.Duration) ([]string, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fault.Input(fmt.Errorf("--dsn: %v", err))
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fault.Env(fmt.Errorf("cannot connect to --dsn server: %s", serverMessage(err)))
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(ctx, `SELECT d.datname, coalesce(shobj_description(d.oid, 'pg_database'), '')
		FROM pg_database AS d WHERE d.datname LIKE 'ledgercheck\_%' ORDER BY 1`)
	if err != nil {
		return nil, fault.Env(fmt.Errorf("listing databases: %s", serverMessage(err)))
	}
	type candidate struct{ name, comment string }
	cands, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (candidate, error) {
		var c candidate
		err := r.Scan(&c.name, &c.comment)
		return c, err
	})
	if err != nil {
		return nil, fault.Env(fmt.Errorf("listing databases: %s", serverMessage(err)))
	}
	self, _ := os.Hostname()
	var dropped []string
	for _, c := range cands {
		if !scratchName.MatchString(c.name) {
			continue
		}
		host, pid, at, ok := parseMark(c.comment)
		if !ok {
			continue
		}
		gone := time.Since(at) > olderThan || (host == self && !processAlive(pid))
		if !gone {
			continue
		}
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{c.name}.Sanitize()+" WITH (FORCE)"); err != nil {
			return dropped, fault.Env(fmt.Errorf("dropping %s: %s", c.name, serverMessage(err)))
		}
		dropped = append(dropped, c.name)
	}
	return dropped, nil
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
