package gate

import "github.com/ledgercheck/ledgercheck/internal/scratch"

// Templates are the scratch templates a run of req copies its databases from: one per dimension
// of a variant installed from its file, over the request's prerequisites, and those of the
// audit's other privilege models. Run hands them to Request.Start; a caller that runs several
// requests on one server (internal/repository) starts it with every request's templates, so
// that one cache entry holds them all.
func Templates(req Request) []scratch.TemplateSpec {
	base := baseFor(req.NoOpenBrain, req.Prerequisites)
	var templates []scratch.TemplateSpec
	for _, v := range append([]Variant{req.Artifact}, portVariants(req.Ports)...) {
		if v.File != "" {
			templates = append(templates, templatesOf(req.Lint, req.Steps.Audit, scratch.TemplateSpec{Dim: v.Dim, Base: base})...)
		}
	}
	return templates
}

// portVariants are the ports' variants.
func portVariants(ports []Port) []Variant {
	vs := make([]Variant, len(ports))
	for i, p := range ports {
		vs[i] = p.Variant
	}
	return vs
}
