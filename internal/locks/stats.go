package locks

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/input"
	"github.com/ledgercheck/ledgercheck/internal/nouns"
	"github.com/ledgercheck/ledgercheck/internal/report"
)

// Size is a table's row count and its size on disk, indexes and TOAST included.
type Size struct {
	Rows  int64 `json:"rows"`
	Bytes int64 `json:"bytes"`
}

// Stats are production's sizes per table, read from the file --table-stats (or table_stats:)
// names: exported from the real database by the query of docs/reference/table-stats.md, as JSON
// (an array of objects with schema, table, rows and bytes) or CSV (a header naming those
// columns, then one line per table).
type Stats struct {
	// File is the file it was read from, as the user named it.
	File   string
	tables map[string]Size
}

// Lookup returns the size of the table schema.name, if the file has it.
func (s *Stats) Lookup(schema, name string) (Size, bool) {
	if s == nil {
		return Size{}, false
	}
	sz, ok := s.tables[schema+"."+name]
	return sz, ok
}

// Len is how many tables the file gives.
func (s *Stats) Len() int { return len(s.tables) }

// ReadStats reads the table statistics file at path through scope's rules (a regular file, at
// most input.TableStats's limit).
func ReadStats(scope input.Scope, path string) (*Stats, error) {
	data, err := scope.ReadFile(path, input.TableStats)
	if err != nil {
		return nil, err
	}
	return ParseStats(path, data)
}

// statsRow is one table of a statistics file. Rows and bytes are JSON numbers or strings
// (psql's json_agg prints bigint as a number; a spreadsheet may quote it).
type statsRow struct {
	Schema string          `json:"schema"`
	Table  string          `json:"table"`
	Rows   json.RawMessage `json:"rows"`
	Bytes  json.RawMessage `json:"bytes"`
}

// ParseStats reads the statistics file called name (for messages) from data: JSON when it starts
// with '[', else CSV. An error is an input error that names the file and, for CSV, the line.
func ParseStats(name string, data []byte) (*Stats, error) {
	s := &Stats{File: name, tables: map[string]Size{}}
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\ufeff")))
	var err error
	if bytes.HasPrefix(trimmed, []byte("[")) {
		err = s.parseJSON(trimmed)
	} else {
		err = s.parseCSV(trimmed)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w (the table statistics: docs/reference/table-stats.md)", name, err)
	}
	if len(s.tables) == 0 {
		return nil, fmt.Errorf("%s: no table in it; export it with the query of docs/reference/table-stats.md", name)
	}
	return s, nil
}

func (s *Stats) parseJSON(data []byte) error {
	var rows []statsRow
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rows); err != nil {
		return fmt.Errorf("not a JSON array of {schema, table, rows, bytes}: %w", err)
	}
	for i, r := range rows {
		rowsN, err1 := jsonCount(r.Rows)
		bytesN, err2 := jsonCount(r.Bytes)
		if err := errors.Join(err1, err2); err != nil || r.Schema == "" || r.Table == "" {
			return fmt.Errorf("entry %d: want schema and table (text), rows and bytes (whole numbers, at least 0): %v", i+1, err)
		}
		s.tables[r.Schema+"."+r.Table] = Size{Rows: rowsN, Bytes: bytesN}
	}
	return nil
}

// jsonCount reads a count from a JSON number or string.
func jsonCount(raw json.RawMessage) (int64, error) {
	t := strings.Trim(strings.TrimSpace(string(raw)), `"`)
	return count(t)
}

// count reads a whole number at least 0; a float of reltuples (1.5e+06) is rounded.
func count(t string) (int64, error) {
	if n, err := strconv.ParseInt(t, 10, 64); err == nil && n >= 0 {
		return n, nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) || f > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q is not a count", t)
	}
	return int64(math.Round(f)), nil
}

func (s *Stats) parseCSV(data []byte) error {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err != nil {
		return fmt.Errorf("not CSV with a header (schema,table,rows,bytes): %w", err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	for _, need := range []string{"schema", "table", "rows", "bytes"} {
		if _, ok := col[need]; !ok {
			return fmt.Errorf("line 1: the header has no %s column (want schema,table,rows,bytes)", need)
		}
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		field := func(k string) string {
			if i := col[k]; i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		rowsN, err1 := count(field("rows"))
		bytesN, err2 := count(field("bytes"))
		if err := errors.Join(err1, err2); err != nil || field("schema") == "" || field("table") == "" {
			return fmt.Errorf("line %d: want schema and table (text), rows and bytes (whole numbers, at least 0): %v", line, err)
		}
		s.tables[field("schema")+"."+field("table")] = Size{Rows: rowsN, Bytes: bytesN}
	}
}

// Grade is how large a table is for a lock on it, by its rows (pgfence's steps): small below
// 10,000 rows, medium below a million, large below ten million, huge from there.
func Grade(rows int64) string {
	switch {
	case rows < 10_000:
		return "small"
	case rows < 1_000_000:
		return "medium"
	case rows < 10_000_000:
		return "large"
	}
	return "huge"
}

// FormatRows writes a row count as people read it: "950 rows", "12 k rows", "2.1 M rows".
func FormatRows(n int64) string {
	if n < 10_000 {
		return nouns.Count(int(n), "row")
	}
	return report.FormatCount(n) + " rows"
}
