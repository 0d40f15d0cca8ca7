package gate

import (
	"context"
	"errors"
	"ledgercheck/internal/config"
	"ledgercheck/internal/scratch/scratchtest"
	"os"
	"strings"
	"testing"

	"ledgercheck/internal/fault"
	"ledgercheck/internal/report"
	"ledgercheck/internal/scratch"
)

// panicOptions are gate options on a real embedded cluster; *srv is the server once started.
func panicOptions(srv **scratch.Server) Options {
	src := []byte("CREATE TABLE IF NOT EXISTS public.t (id int);\nNOTIFY pgrst, 'reload schema';\n")
	return Options{
		Left:  Variant{Name: "artifact", File: "a.sql", Src: src, Dim: 1536},
		Right: Variant{Name: "port", File: "b.sql", Src: src, Dim: 1024},
		Lint:  config.DefaultLint(),
		Start: func(ctx context.Context) (*scratch.Server, error) {
			s, err := scratch.Start(ctx, scratch.Options{})
			*srv = s
			return s, err
		},
	}
}

// A panic in any of the gate's goroutines is an error of Run, the other steps are cancelled,
// and the scratch cluster is stopped and removed before Run returns.
func TestPanicInAStepIsAnErrorAndTheServerIsClosed(t *testing.T) {
	scratchtest.NeedPostgres(t)
	waitCancel := func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	for _, tc := range []struct {
		name   string
		parity ParityFunc
		rerun  RerunFunc
		want   string
	}{
		{"parity panics", func(context.Context, *scratch.Server) ([]report.PhaseResult, error) { panic("parity boom") }, nil, "parity: internal error: parity boom"},
		{"rerun panics while parity runs", func(ctx context.Context, _ *scratch.Server) ([]report.PhaseResult, error) {
			return nil, waitCancel(ctx)
		}, func(_ context.Context, _ *scratch.Server, v Variant) (report.PhaseResult, error) {
			var m map[string]int
			m[v.Name]++ // assignment to a nil map
			return report.PhaseResult{}, nil
		}, "internal error: assignment to entry in nil map"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var srv *scratch.Server
			opts := panicOptions(&srv)
			opts.Parity, opts.Rerun = tc.parity, tc.rerun
			rep, err := Run(context.Background(), opts)
			var pe *fault.PanicError
			if rep != nil || !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run = %v, %v; want no report and a *fault.PanicError with %q", rep, err, tc.want)
			}
			if !strings.Contains(err.Error(), "gate_test.go") {
				t.Errorf("%q does not say where the panic happened", err)
			}
			if srv == nil || srv.Dir() == "" {
				t.Fatal("the server was not started")
			}
			if _, err := os.Stat(srv.Dir()); !os.IsNotExist(err) {
				t.Errorf("cluster directory %s remains after the panic", srv.Dir())
			}
		})
	}
}

func TestPanicInStartIsAnError(t *testing.T) {
	opts := panicOptions(new(*scratch.Server))
	opts.Start = func(context.Context) (*scratch.Server, error) { panic("start boom") }
	_, err := Run(context.Background(), opts)
	var pe *fault.PanicError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "start boom") {
		t.Fatalf("Run = %v, want the start panic as an error", err)
	}
}
