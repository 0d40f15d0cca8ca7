package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/ledgercheck/ledgercheck/introspect"
	"io"
)

// snapshotDoc is the envelope of `ledgercheck snapshot --format json`: the same schema_version
// and tool as the findings document, then the snapshot or the footprint (introspect's model,
// which documents its fields).
type snapshotDoc struct {
	SchemaVersion int                   `json:"schema_version"`
	Tool          jsonTool              `json:"tool"`
	Snapshot      *introspect.Snapshot  `json:"snapshot,omitempty"`
	Footprint     *introspect.Footprint `json:"footprint,omitempty"`
}

// WriteSnapshotJSON writes a catalog snapshot as one JSON document of schema version
// [SchemaVersion], described in docs/json-schema.md.
func WriteSnapshotJSON(w io.Writer, tool, version string, snapshot *introspect.Snapshot) error {
	return writeDocument(w, snapshotDoc{SchemaVersion: SchemaVersion, Tool: jsonTool{tool, version}, Snapshot: snapshot})
}

// WriteFootprintJSON writes a footprint (what installing a migration created, changed and
// dropped) as [WriteSnapshotJSON] writes a snapshot.
func WriteFootprintJSON(w io.Writer, tool, version string, footprint *introspect.Footprint) error {
	return writeDocument(w, snapshotDoc{SchemaVersion: SchemaVersion, Tool: jsonTool{tool, version}, Footprint: footprint})
}

// writeDocument writes v indented, HTML characters unescaped, as every JSON document of report.
// Characters encoding/json leaves raw that no report writes raw are escaped (escapeJSON).
func writeDocument(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	if _, err := w.Write(escapeJSON(b.Bytes())); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	return nil
}
