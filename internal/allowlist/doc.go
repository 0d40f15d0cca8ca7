// Package allowlist reads allowlist.yaml, the reviewed differences between two installs, and
// sorts a comparison's differences into accepted, unreviewed and cosmetic ones.
//
// # Format
//
//	version: 2
//	entries:
//	  - kind: table                       # the difference's kind, object and attribute,
//	    object: public.agent_decision_ledger  # as the parity report prints them
//	    attr: rls
//	    artifact: "true"                  # the artifact's and the port's values ("" for absent) ...
//	    port: "false"
//	    reason: the port uses a role model instead of RLS
//	  - kind: function
//	    object: public.match_decision_ledger(...)
//	    attr: body
//	    digest: sha256:...                # ... or the digest of both (bodies, listings)
//	    reason: ...
//
//	  - kind: probe                       # probes one change moved: one entry for the cause
//	    cause: function public.f(...) arguments
//	    probes:
//	      fts-migration-runners: sha256:...  # each probe's name and the digest of its rows
//	    reason: ...
//
// A dimension mismatch (kind dimension) pins expected and found instead of artifact and port.
//
// An entry without attr is an object present in one variant only. object_match (an anchored RE2
// regular expression) may replace object for one difference repeated on several objects.
//
// Decoding is strict ([Parse]): unknown keys, a version other than [Version], entries that do
// not pin their values (or pin the other kind's pair), malformed digests or patterns, empty or TODO reasons and duplicate
// entries are errors with the file's line number (exit 2).
//
// Because every entry pins the values, an entry for a changed function body accepts that exact
// pair of normalized bodies: any later change to either body is a new, unreviewed difference.
//
// # Applying
//
// [File.Apply] returns an [Outcome]: semantic differences an entry accepts, those none accepts
// (they fail the gate), cosmetic differences (reported, never failing), stale entries, which
// accept nothing and also fail the gate, so the list cannot rot, and changes since review: a
// stale entry paired with the unreviewed difference of the same kind, object and attribute,
// reported once with the reviewed and the new values. [Suggest] prints candidate entries, every
// reason TODO, for a person to review; [Merge] merges them into the file through the yaml.v3
// node tree (`allowlist suggest --write`), keeping every reviewed entry's reason and comments.
package allowlist
