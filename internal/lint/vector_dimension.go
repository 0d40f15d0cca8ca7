package lint

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// VectorDimension is the id of the rule below.
const VectorDimension = "vector-dimension"

var _ = register(&Rule{
	Rule: rule.Register(rule.Rule{Phase: finding.PhaseLint,
		ID: VectorDimension, Severity: finding.SevError,
		Summary: "with --dim N, a vector, halfvec or sparsevec whose dimension is not N",
		Explain: `A port installs the same schema at another embedding dimension (the 1024-dim production port
of the 1536-dim artifact). One vector(1536) left behind in a parameter, a cast or a declaration
makes the port fail at run time ("different vector dimensions"), and pg_proc does not even record
parameter typmods, so only the source shows it. With --dim N every vector(N), halfvec(N) and
sparsevec(N) in the file, function bodies included, must use N.

With --dim 1024,

    p_query_embedding vector(1536) DEFAULT NULL

becomes

    p_query_embedding vector(1024) DEFAULT NULL`,
	}),
	Check: func(p *Pass) {
		if p.Options.Dim <= 0 {
			return
		}
		for _, v := range p.File.VectorTypes {
			if v.Dim != p.Options.Dim {
				p.Report(v.Pos, "", "%s(%d) does not match --dim %d", v.Type, v.Dim, p.Options.Dim)
			}
		}
	},
})
