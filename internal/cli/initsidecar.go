package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/input"
	"github.com/ledgercheck/ledgercheck/internal/pgsql"
)

// sidecarFacts is what init reads of a sidecar's migration to choose its defaults: whether it
// has a vector type with a dimension (then it needs --dim), and the Open Brain objects it uses
// (then it needs the Open Brain prerequisites).
type sidecarFacts struct {
	// unread says why the file could not be read or parsed ("" when it was): nothing is known,
	// so init keeps the defaults that assume the most (a dimension, the prerequisites).
	unread string
	// vector is the file's first vector type with a dimension; nil for none.
	vector *pgsql.VectorType
	// openBrain are the Open Brain objects the file uses, each once, with where it first does:
	// "table public.thoughts (a.sql:3:40)".
	openBrain []string
}

// readSidecar reads the migration at path (inside the scope) for init.
func readSidecar(scope input.Scope, path string) sidecarFacts {
	src, err := scope.ReadFile(path, input.Migration)
	if err != nil {
		return sidecarFacts{unread: fmt.Sprintf("%s could not be read", path)}
	}
	if strings.Contains(string(src), ":dim") {
		return sidecarFacts{unread: fmt.Sprintf("%s writes its dimension as :dim", path)}
	}
	f, uses, err := pgsql.ParseUses(path, src)
	if err != nil {
		return sidecarFacts{unread: fmt.Sprintf("%s does not parse", path)}
	}
	var out sidecarFacts
	if len(f.VectorTypes) > 0 {
		out.vector = &f.VectorTypes[0]
	}
	ob := openBrainObjects()
	seen := map[string]bool{}
	for _, u := range uses {
		if u.Name.Schema != "" && u.Name.Schema != "public" {
			continue
		}
		kind, ok := ob[u.Name.Name]
		if !ok || !sameKind(kind, u.Kind) || seen[u.Name.Name] {
			continue
		}
		seen[u.Name.Name] = true
		out.openBrain = append(out.openBrain, fmt.Sprintf("%s public.%s (%s)", kind, u.Name.Name, u.Pos))
	}
	return out
}

// openBrainObjects are the objects the Open Brain prerequisites create (the shipped lint
// policy's existing objects, config.DefaultLint), by name: their kind ("table", "function").
func openBrainObjects() map[string]string {
	out := map[string]string{}
	for _, e := range config.DefaultLint().Existing {
		kind, ref, ok := strings.Cut(e, " ")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(ref, "(")
		out[strings.TrimPrefix(name, "public.")] = kind
	}
	return out
}

// sameKind reports whether a use of kind u can name an object of the policy's kind.
func sameKind(kind string, u pgsql.ObjKind) bool {
	switch kind {
	case "table":
		return u == pgsql.KindTable
	case "function":
		return u == pgsql.KindFunction
	}
	return false
}

// openBrainDefaults decides prerequisites.openbrain for the files init reads, and says why, in
// the comment lines the configuration carries: on where a file uses an Open Brain object (or
// could not be read), off otherwise.
func openBrainDefaults(files map[string]sidecarFacts, order []string) (bool, []string) {
	var uses, unread []string
	for _, name := range order {
		uses = append(uses, files[name].openBrain...)
		if files[name].unread != "" {
			unread = append(unread, files[name].unread)
		}
	}
	slices.Sort(unread)
	switch {
	case len(uses) > 0:
		return true, append([]string{"On: the migration uses Open Brain objects:"}, indent(uses)...)
	case len(unread) > 0:
		return true, []string{"On, the default: " + strings.Join(unread, "; ") + "; set false if it uses none of them."}
	}
	return false, []string{"Off: the migration uses no Open Brain object (thoughts, agent_memories, their functions);", "set true if it comes to."}
}

func indent(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = "  " + l
	}
	return out
}

// artifactDim checks init's --dim for the artifact read as facts: required where the file has a
// vector type (or could not be read), else optional (0: the configuration gives none).
func artifactDim(cmd *cobra.Command, in *config.Init, facts sidecarFacts) error {
	switch {
	case cmd.Flags().Changed("dim"):
		return dimFlag(cmd, "dim", in.Dim, "the artifact's vector dimension")
	case facts.vector != nil:
		v := facts.vector
		return fault.Input(fmt.Errorf("--dim N is required: %s has a vector type (%s(%d) at %s); pass the dimension it is installed at, e.g. --dim %d", in.Artifact, v.Type, v.Dim, v.Pos, v.Dim))
	case facts.unread != "":
		return dimFlag(cmd, "dim", in.Dim, "the artifact's vector dimension")
	}
	in.Dim = 0
	return nil
}

// sidecarDefaults reads the files of in and sets its dimension and Open Brain prerequisites
// from them (artifactDim, openBrainDefaults).
func sidecarDefaults(cmd *cobra.Command, g *globals, in *config.Init) error {
	scope := g.scope()
	files := map[string]sidecarFacts{in.Artifact: readSidecar(scope, in.Artifact)}
	order := []string{in.Artifact}
	if in.Port != "" && in.Port != in.Artifact {
		files[in.Port] = readSidecar(scope, in.Port)
		order = append(order, in.Port)
	}
	if err := artifactDim(cmd, in, files[in.Artifact]); err != nil {
		return err
	}
	in.OpenBrain, in.OpenBrainWhy = openBrainDefaults(files, order)
	return nil
}
