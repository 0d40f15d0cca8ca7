package gate

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/rerun"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
	"github.com/ledgercheck/ledgercheck/internal/scratch/scratchtest"
)

// check fails a file once for one fact: a DO block that does not make the plain CREATE
// FUNCTION after it rerun-safe is lint's dynamic-idempotency warning and not-idempotent error;
// the rerun audit's failure at that CREATE is folded into the latter, with a note, the rerun
// phase says fail, and the installed audit runs as a phase of its own.
func TestCheckFailsOnceForOneFact(t *testing.T) {
	res := checkCorpusFile(t, "23-do-revoke-loop-then-create.sql", Steps{Lint: true, CrossCheck: true, Audit: true, Rerun: true})
	var rules, notes []string
	var names []string
	for _, ph := range res.Report.Phases {
		names = append(names, ph.Name)
		for _, f := range ph.Findings {
			rules = append(rules, f.Rule)
		}
		notes = append(notes, ph.Notes...)
	}
	got := strings.Join(rules, " ")
	if !strings.Contains(got, "not-idempotent") || !strings.Contains(got, "dynamic-idempotency") || strings.Contains(got, rerun.RuleRerunFailed) {
		t.Errorf("findings %v: want not-idempotent and dynamic-idempotency, and no %s", rules, rerun.RuleRerunFailed)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "is lint's not-idempotent finding there, reported once (lint artifact)") {
		t.Errorf("no note of the folded rerun failure in %q", notes)
	}
	// Each phase the one finding stands for says what happened in it: the rerun failed, and the
	// lint finding says the rerun audit confirms it.
	for _, ph := range res.Report.Phases {
		switch ph.Name {
		case "rerun artifact":
			if ph.Status != "fail" {
				t.Errorf("rerun artifact %s, want fail: its run 2 failed (folded into lint's finding)", ph.Status)
			}
		case "lint artifact":
			confirmed := false
			for _, f := range ph.Findings {
				confirmed = confirmed || f.Rule == "not-idempotent" && strings.HasSuffix(f.Message, "(the rerun audit confirms it: rerun artifact)")
			}
			if !confirmed {
				t.Errorf("lint's not-idempotent finding does not name the rerun phase it stands for: %v", ph.Findings)
			}
		}
	}
	if !strings.Contains(strings.Join(names, ","), "audit artifact") {
		t.Errorf("phases %v: no audit phase", names)
	}
}

// In check, an object created by SQL built at run time is the file's own once the install
// shows it: lint's modifies-existing-object on its GRANT is dropped from the lint phase, and the
// audit reports the definer function the EXECUTE created.
func TestCheckOwnsWhatDynamicSQLCreated(t *testing.T) {
	res := checkCorpusFile(t, "44-dynamic-dimension-chunks.sql", Steps{Lint: true, CrossCheck: true, Audit: true})
	var got []string
	for _, ph := range res.Report.Phases {
		for _, f := range ph.Findings {
			got = append(got, ph.Name+": "+f.Rule)
		}
	}
	all := strings.Join(got, "\n")
	if strings.Contains(all, "modifies-existing-object") || !strings.Contains(all, "audit artifact: definer-executable-by-anon") {
		t.Errorf("findings:\n%s\nwant no modifies-existing-object, and definer-executable-by-anon in the audit", all)
	}
}

// checkCorpusFile runs the steps of check on a corpus file as the artifact, at 1536, with the
// shipped lint policy, on an embedded cluster of its own.
func checkCorpusFile(t *testing.T, name string, steps Steps) *Result {
	t.Helper()
	scratchtest.NeedPostgres(t)
	src, err := os.ReadFile("../../testdata/corpus/" + name)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Request{
		Artifact: Variant{Name: "artifact", File: name, Src: src, Dim: 1536},
		Steps:    steps,
		Lint:     config.DefaultLint(),
		Start: func(ctx context.Context, _ []scratch.TemplateSpec) (*scratch.Server, error) {
			return scratch.Start(ctx, scratch.Options{})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A fact lint reported and the installed audit found too is one finding, lint's, which says the
// audit confirms it; the audit phase says fail and points at it, instead of passing with nothing.
func TestAuditConfirmingLintIsOneFinding(t *testing.T) {
	res := checkCorpusFile(t, "08-rls-no-policy-run-journal.sql", Steps{Lint: true, CrossCheck: true, Audit: true})
	var lintMsgs []string
	for _, ph := range res.Report.Phases {
		switch ph.Name {
		case "lint artifact":
			for _, f := range ph.Findings {
				if f.Rule == "table-no-service-role-policy" {
					lintMsgs = append(lintMsgs, f.Message)
				}
			}
		case "audit artifact":
			if ph.Status != "fail" || len(ph.Findings) != 0 || !strings.Contains(strings.Join(ph.Notes, "\n"), "its rls-enabled-no-policy is lint's table-no-service-role-policy at") {
				t.Errorf("audit artifact: %s, %d findings, notes %q; want fail with a note pointing at lint's finding", ph.Status, len(ph.Findings), ph.Notes)
			}
		}
	}
	if len(lintMsgs) == 0 || !strings.HasSuffix(lintMsgs[0], "(the installed audit confirms it: audit artifact)") {
		t.Errorf("lint's finding does not say the audit confirms it: %q", lintMsgs)
	}
}
