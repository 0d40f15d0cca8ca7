package lint

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/pgsql/pgsqltest"
)

// migration1MB generates a migration of about 1 MB and 10,000 statements in the shape of a real
// sidecar: tables with RLS, policies and grants, indexes, PL/pgSQL functions and DO blocks.
func migration1MB() string {
	var b strings.Builder
	b.WriteString("BEGIN;\nSET search_path TO public, extensions;\n")
	for i := 0; b.Len() < 1<<20; i++ {
		fmt.Fprintf(&b, `-- table %[1]d: a sidecar table with the full contract, padded to a realistic size
CREATE TABLE IF NOT EXISTS public.side_%[1]d (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  memory_id uuid NOT NULL REFERENCES public.agent_memories (id) ON DELETE CASCADE,
  step_index integer NOT NULL CHECK (step_index >= 0),
  embedding vector(1536),
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS idx_side_%[1]d_step ON public.side_%[1]d (memory_id, step_index DESC);
ALTER TABLE public.side_%[1]d ENABLE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS side_%[1]d_service_role_all ON public.side_%[1]d;
CREATE POLICY side_%[1]d_service_role_all ON public.side_%[1]d FOR ALL TO service_role USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON public.side_%[1]d TO service_role;
COMMENT ON TABLE public.side_%[1]d IS 'sidecar table %[1]d';
INSERT INTO public.side_%[1]d (memory_id, step_index) SELECT id, 0 FROM public.agent_memories WHERE memory_type = 'decision' ON CONFLICT DO NOTHING;
UPDATE public.side_%[1]d SET step_index = step_index WHERE step_index < 0;
DELETE FROM public.side_%[1]d WHERE step_index < 0;
`, i)
		if i%10 == 0 {
			fmt.Fprintf(&b, `CREATE OR REPLACE FUNCTION public.side_fn_%[1]d(p_id uuid, p_e vector(1536) DEFAULT NULL)
RETURNS integer LANGUAGE plpgsql SET search_path = public, extensions AS $fn$
DECLARE
  v_n integer := 0;
BEGIN
  UPDATE public.side_%[1]d SET step_index = step_index + 1 WHERE memory_id = p_id;
  GET DIAGNOSTICS v_n = ROW_COUNT;
  IF v_n = 0 THEN
    INSERT INTO public.side_%[1]d (memory_id, step_index) VALUES (p_id, 0);
  END IF;
  RETURN v_n;
END
$fn$;
REVOKE EXECUTE ON FUNCTION public.side_fn_%[1]d(uuid, vector) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION public.side_fn_%[1]d(uuid, vector) TO service_role;
DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_class WHERE relname = 'side_%[1]d') THEN RAISE EXCEPTION 'missing'; END IF; END $$;
`, i)
		}
	}
	b.WriteString("NOTIFY pgrst, 'reload schema';\nCOMMIT;\n")
	return b.String()
}

// BenchmarkLint1MB lints a generated ~1 MB, ~10,000-statement migration: parsing, body analysis
// and every rule. The issue asks for under 1 s.
func BenchmarkLint1MB(b *testing.B) {
	src := []byte(migration1MB())
	cfg := shippedConfig(b)
	fs := Source("big.sql", src, cfg, Options{Dim: 1536})
	if slices.ContainsFunc(fs, func(f finding.Finding) bool { return f.Severity == finding.SevError }) {
		b.Fatalf("the generated migration has errors, first: %v", fs[0])
	}
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Source("big.sql", src, cfg, Options{Dim: 1536})
	}
}

func TestBenchmarkMigrationShape(t *testing.T) {
	src := migration1MB()
	if n := strings.Count(src, ";\n"); len(src) < 1<<20 || n < 9000 || n > 13000 {
		t.Errorf("generated migration: %d bytes, ~%d statements; want ~1 MB and ~10,000", len(src), n)
	}
}

// BenchmarkLint4MiBTinyStatements lints 4 MiB of "SELECT 1;" (about 420,000 statements): memory
// and time per statement.
func BenchmarkLint4MiBTinyStatements(b *testing.B) {
	src := pgsqltest.TinyStatements(4 << 20)
	cfg := shippedConfig(b)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if fs := Source("tiny.sql", src, cfg, Options{}); len(fs) != 0 {
			b.Fatalf("%d findings, first %v", len(fs), fs[0])
		}
	}
}
