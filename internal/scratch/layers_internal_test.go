package scratch

import (
	"fmt"
	"testing"
)

// Past the bound, a cache entry holds the templates without layers and the deepest of the
// others, up to the bound.
func TestCachedSpecs(t *testing.T) {
	var layers []Layer
	specs := []TemplateSpec{{Dim: 3}, {Dim: 3, Base: Base{NoOpenBrain: true}}}
	for i := range maxCachedTemplates + 5 {
		layers = append(layers, Layer{Key: fmt.Sprint(i)})
		specs = append(specs, TemplateSpec{Dim: 3, Base: Base{Layers: layers}})
	}
	got := cachedSpecs(specs)
	if len(got) != maxCachedTemplates || len(got[0].Base.Layers) != 0 || len(got[1].Base.Layers) != 0 {
		t.Fatalf("%d templates cached, first two with %d and %d layers; want %d, the two without layers first", len(got), len(got[0].Base.Layers), len(got[1].Base.Layers), maxCachedTemplates)
	}
	if n := len(got[2].Base.Layers); n != 8 {
		t.Errorf("the shallowest template with layers cached has %d layers, want 8 (the %d deepest of 45)", n, maxCachedTemplates-2)
	}
	if all := specs[:10]; len(cachedSpecs(all)) != 10 {
		t.Errorf("under the bound every template is cached")
	}
}
