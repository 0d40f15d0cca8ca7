// Package diff compares two installs of a migration (the artifact and a port, each a footprint in
// its own scratch database) attribute by attribute. Rendering them is the reports' (internal/report).
//
// # Model
//
// [Compare] takes the artifact's and the port's [Install] (a footprint from
// github.com/ledgercheck/ledgercheck/introspect, the parsed source and the variant's vector dimension) and returns a
// [Result]: the [Difference] list, sorted by (kind, object, attribute), and the dimension [Site]
// list. Every value is keyed by the variant it belongs to ([Which]: [Artifact] or [Port]).
//
// A [Difference] is one attribute of one object whose normalized values differ, or an object
// present in one variant only (Attr ""; [Difference.Presence] says which; its facts, and those of
// its one-sided children such as a table's columns, constraints and indexes, are folded into one
// listing). Its identity is the tuple (kind, object, attribute, artifact's value, port's value):
// [Difference.Digest] is the SHA-256 of the two values, [Difference.ID] the readable key with a
// digest prefix. An allowlist entry pins a difference by that tuple or digest
// (github.com/ledgercheck/ledgercheck/internal/allowlist).
//
// A trigger, policy, index or constraint that one variant has under one name and the other under
// another, on the same table and with the same definition (each one's own name taken out), is
// one difference of attribute [AttrRenamed] (Artifact: the old identity, Port: the new one), not
// two one-sided objects. [Difference.Members] summarizes what a one-sided object holds ("4
// columns, 2 indexes"), and its display text (ArtifactText or PortText) has one line per object
// rather than one per fact. Differing argument lists are displayed one argument per line
// ([OnePerLine]; ArtifactText and PortText), so a changed default is one line of the diff; the
// values, and so the digests, are the catalog's.
//
// Function bodies are compared in their normalized form (comments and layout gone, every literal
// and identifier kept); a body whose raw text alone differs is [introspect.Cosmetic]: reported,
// never a failure. Everything else is [introspect.Semantic].
//
// # Dimensions
//
// When the two variants have different dimensions, every vector(N), halfvec(N) and sparsevec(N)
// whose N is the variant's own dimension is rewritten to type(:dim) before comparing, in catalog
// values (column types, bodies, view definitions, ...) and in the declared signatures taken from
// the source (pg_proc keeps no typmod, so [Install.Source] supplies "declared ..." attributes for
// every parameter, result column and result type). Every rewrite is a [Site], listed in the
// report, so the equivalence is never silent. A typmod that is not the variant's dimension is
// not rewritten, so it shows up as a difference; one that shows up in no difference (say, both files
// declare vector(768)) is reported as a difference of kind [KindDimension] by the source scan,
// with its own Expected (what the dimension requires) and Found (what the file declares) values.
package diff
