package report

import (
	"encoding/json"
	"fmt"
	"io"
)

// snapshotDoc is the envelope of `ledgercheck snapshot --format json`: the same schema_version
// and tool as the findings document, then the snapshot or the footprint (introspect's model,
// which documents its fields).
type snapshotDoc struct {
	SchemaVersion int      `json:"schema_version"`
	Tool          jsonTool `json:"tool"`
	Snapshot      any      `json:"snapshot,omitempty"`
	Footprint     any      `json:"footprint,omitempty"`
}

// WriteSnapshotJSON writes a catalog snapshot (an introspect.Snapshot) as one JSON document of
// schema version [SchemaVersion], described in docs/json-schema.md.
func WriteSnapshotJSON(w io.Writer, tool, version string, snapshot any) error {
	return writeDocument(w, snapshotDoc{SchemaVersion: SchemaVersion, Tool: jsonTool{tool, version}, Snapshot: snapshot})
}

// WriteFootprintJSON writes a footprint (an introspect.Footprint: what installing a migration
// created, changed and dropped) as [WriteSnapshotJSON] writes a snapshot.
func WriteFootprintJSON(w io.Writer, tool, version string, footprint any) error {
	return writeDocument(w, snapshotDoc{SchemaVersion: SchemaVersion, Tool: jsonTool{tool, version}, Footprint: footprint})
}

// writeDocument writes v indented, HTML characters unescaped, as every JSON document of report.
func writeDocument(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	return nil
}
