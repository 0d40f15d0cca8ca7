package gate

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// panicRequest is a check request on a real embedded cluster; *srv is the server once started.
func panicRequest(srv **scratch.Server) Request {
	src := []byte("CREATE TABLE IF NOT EXISTS public.t (id int);\nNOTIFY pgrst, 'reload schema';\n")
	return Request{
		Artifact: Variant{Name: "artifact", File: "a.sql", Src: src, Dim: 1536},
		Ports:    []Port{{Variant: Variant{Name: "port", File: "b.sql", Src: src, Dim: 1024}}},
		Steps:    Steps{Lint: true, CrossCheck: true, Parity: true, Rerun: true},
		Lint:     config.DefaultLint(),
		Start: func(ctx context.Context, _ []scratch.TemplateSpec) (*scratch.Server, error) {
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
	for _, tc := range []struct {
		name, when, want string
	}{
		{"a variant's install panics", "installed", "internal error: boom at installed"},
		{"the rerun audit panics", "rerun: applying", "internal error: boom at rerun: applying"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var srv *scratch.Server
			req := panicRequest(&srv)
			req.Logf = func(format string, args ...any) {
				if strings.Contains(format, tc.when) {
					panic("boom at " + tc.when)
				}
			}
			res, err := Run(context.Background(), req)
			var pe *fault.PanicError
			if res != nil || !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run = %v, %v; want no report and a *fault.PanicError with %q", res, err, tc.want)
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
	req := panicRequest(new(*scratch.Server))
	req.Start = func(context.Context, []scratch.TemplateSpec) (*scratch.Server, error) { panic("start boom") }
	_, err := Run(context.Background(), req)
	var pe *fault.PanicError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "start boom") {
		t.Fatalf("Run = %v, want the start panic as an error", err)
	}
}
