package gate

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/report"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// lint --install and check take a file through the same steps: the findings of lint's one phase
// are those of check's lint, cross-check and audit phases of the same file (rule and position;
// check's messages also say which phase confirms a finding).
func TestLintInstallIsChecksSteps(t *testing.T) {
	srv := scratchtest.Server(t)
	for _, name := range []string{"08-rls-no-policy-run-journal.sql", "23-do-revoke-loop-then-create.sql", "44-dynamic-dimension-chunks.sql", "35-dynamic-alter-thoughts-source.sql"} {
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile("../../testdata/corpus/" + name)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), Request{Artifact: Variant{Name: "artifact", File: name, Src: src, Dim: 1536},
				Steps: Steps{Lint: true, CrossCheck: true, Audit: true, Bodies: true}, Lint: config.DefaultLint(), Server: srv})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Lint(context.Background(), LintRequest{Files: []string{name}, Read: func(string) ([]byte, error) { return src, nil },
				Request: Request{Lint: config.DefaultLint(), Server: srv}, Install: true})
			if err != nil {
				t.Fatal(err)
			}
			want, got := located(res.Report), located(rep)
			if len(want) == 0 || !slices.Equal(got, want) {
				t.Errorf("lint --install found\n%q\ncheck's lint, cross-check and audit\n%q", got, want)
			}
		})
	}
}

// located is every finding of rep as "rule@position", sorted.
func located(rep *report.Report) []string {
	var out []string
	for _, ph := range rep.Phases {
		for _, f := range ph.Findings {
			out = append(out, f.Rule+"@"+f.Pos.String())
		}
	}
	slices.Sort(out)
	return out
}

// TestScheduledJobIsLintedRunAndAudited: the held-out attack, a pg_cron job whose command turns
// row level security off and grants the table to anon, in a file that does nothing wrong itself.
// check reads the command as SQL (lint's grant-to-api-role at the job's line) and runs it once
// after the install, so the audit sees the table open to anon (rls-disabled-in-public) and the
// rerun audit sees the file's own ENABLE undo what the job did, at the job's statement.
func TestScheduledJobIsLintedRunAndAudited(t *testing.T) {
	srv := scratchtest.Server(t)
	name := "../../testdata/lint/grant-to-api-role-cron-job/input.sql"
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Request{Artifact: Variant{Name: "artifact", File: "job.sql", Src: src, Dim: 1536},
		Steps: Steps{Lint: true, CrossCheck: true, Audit: true, Bodies: true, Rerun: true}, Lint: config.DefaultLint(), Server: srv})
	if err != nil {
		t.Fatal(err)
	}
	got := located(res.Report)
	for _, want := range []string{"grant-to-api-role@job.sql:17:3", "rls-disabled-in-public@job.sql:4:1", "rerun-catalog-changed@job.sql:16:3"} {
		if !slices.Contains(got, want) {
			t.Errorf("check found %q, want %s among them", got, want)
		}
	}
}
