package repository

import (
	"fmt"
	"strings"

	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/nouns"
)

// bounds checks the run against req's bounds: how many sidecars it checks, and how long the
// chain of needs under each of them is.
func (req Request) bounds(checked []Sidecar) error {
	if req.MaxSidecars > 0 && len(checked) > req.MaxSidecars {
		return fault.Input(fmt.Errorf("the run would check %s, more than limits.sidecars (%d): check what a branch changed (check --changed REF) or one sidecar (check --sidecar NAME), or raise limits.sidecars in the configuration",
			nouns.Count(len(checked), "sidecar"), req.MaxSidecars))
	}
	if req.MaxDepth <= 0 {
		return nil
	}
	for _, s := range checked {
		if chain := req.longestChain(s.Name); len(chain)-1 > req.MaxDepth {
			shown := chain
			if len(shown) > 6 {
				shown = append(append(append([]string{}, chain[:3]...), "..."), chain[len(chain)-2:]...)
			}
			return fault.Input(fmt.Errorf("sidecar %s is installed over a chain of %d needs (%s), deeper than limits.needs_depth (%d): raise limits.needs_depth in the configuration",
				s.Name, len(chain)-1, strings.Join(shown, " -> "), req.MaxDepth))
		}
	}
	return nil
}

// longestChain is the longest chain of needs that ends at the sidecar named name: its first
// element needs nothing, each one after it needs the one before, and the last is name.
func (req Request) longestChain(name string) []string {
	byName := map[string]Sidecar{}
	for _, s := range req.Sidecars {
		byName[s.Name] = s
	}
	memo := map[string][]string{}
	var chain func(n string) []string
	chain = func(n string) []string {
		if c, ok := memo[n]; ok {
			return c
		}
		memo[n] = []string{n} // a cycle (the configuration refuses them) ends here
		var best []string
		for _, m := range byName[n].Needs {
			if c := chain(m); len(c) > len(best) {
				best = c
			}
		}
		c := append(append([]string{}, best...), n)
		memo[n] = c
		return c
	}
	return chain(name)
}
