package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"

	"github.com/ledgercheck/ledgercheck/internal/allowlist"
	"github.com/ledgercheck/ledgercheck/internal/config"
	"github.com/ledgercheck/ledgercheck/internal/fault"
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/gate"
	"github.com/ledgercheck/ledgercheck/internal/input"
	"github.com/ledgercheck/ledgercheck/internal/locks"
	"github.com/ledgercheck/ledgercheck/internal/probe"
	"github.com/ledgercheck/ledgercheck/internal/scratch"
)

// newRequest is the one skeleton of every gate request the commands build: the command and
// its steps, the server the flags describe, progress on stderr and the tool's identity.
func newRequest(g *globals, sf *serverFlags, command string, steps gate.Steps) (gate.Request, error) {
	req := gate.Request{
		Steps: steps, Command: command,
		Start: func(ctx context.Context, t []scratch.TemplateSpec) (*scratch.Server, error) {
			return g.startServer(ctx, sf, t)
		},
		Logf: func(format string, args ...any) { g.logf(format, args...) },
		Tool: "ledgercheck", Version: Version, Root: ".",
	}
	var err error
	req.Postgres, err = sf.postgres()
	return req, err
}

// configRequest is newRequest with what a configuration says of every variant (lint's request
// stops here): its lint policy, the rerun's times, and what every database holds, the Open
// Brain prerequisites unless turned off and the prerequisite files (read).
func configRequest(cfg *config.Config, g *globals, sf *serverFlags, command string, steps gate.Steps) (gate.Request, error) {
	req, err := newRequest(g, sf, command, steps)
	if err != nil {
		return req, err
	}
	req.Lint, req.NoOpenBrain, req.Times = cfg.Lint, !cfg.Prerequisites.OpenBrain, cfg.Rerun.Times
	req.Prerequisites, err = readPrerequisites(cfg)
	return req, err
}

// gateRequest is the gate request of a command that reads a configuration (check, parity,
// allowlist suggest): configRequest, and every other file the configuration names read: the
// artifact, its ports with their allowlists, the fixture and the probes.
func gateRequest(cfg *config.Config, g *globals, sf *serverFlags, command string, steps gate.Steps) (gate.Request, error) {
	req, err := configRequest(cfg, g, sf, command, steps)
	if err != nil {
		return req, err
	}
	read := func(path string, k input.Kind) (*gate.SQLFile, error) {
		src, err := cfg.Scope.ReadFile(path, k)
		if err != nil {
			return nil, fault.Input(err)
		}
		return &gate.SQLFile{Name: path, Src: src}, nil
	}
	if req.Artifact, err = variant(cfg, "artifact", "artifact", cfg.Artifact); err != nil {
		return req, err
	}
	for i, p := range cfg.Ports {
		v, err := variant(cfg, "ports."+strconv.Itoa(i), p.Name, p.Variant)
		if err != nil {
			return req, err
		}
		var al *allowlist.File
		if p.Allowlist != "" {
			al, err = loadAllowlist(cfg.Scope, p.Allowlist)
			if errors.Is(err, fs.ErrNotExist) {
				return req, fault.Input(fmt.Errorf("%s: no such allowlist file (create it with `%s`, then write a reason for each entry)", p.Allowlist, suggestCommand(cfg, p)))
			}
			if err != nil {
				return req, err
			}
		}
		req.Ports = append(req.Ports, gate.Port{Variant: v, Allowlist: al})
	}
	if cfg.Fixture != "" {
		if req.Fixture, err = read(cfg.Fixture, input.Fixture); err != nil {
			return req, err
		}
	}
	if err := lockPolicy(cfg, &req); err != nil {
		return req, err
	}
	for i, p := range cfg.Probes {
		pr := probe.Probe{Name: p.Name, SQL: p.SQL, Tolerance: p.Tolerance, Role: p.Role}
		if line := cfg.Line("probes." + strconv.Itoa(i)); cfg.Path != "" && line > 0 {
			pr.Pos = finding.Position{File: cfg.Path, Line: line, Col: 1}
		}
		req.Probes = append(req.Probes, pr)
	}
	return req, nil
}

// readPrerequisites reads the configuration's prerequisite files, in order.
func readPrerequisites(cfg *config.Config) ([]gate.SQLFile, error) {
	var scripts []gate.SQLFile
	for _, x := range cfg.Prerequisites.Files {
		src, err := cfg.Scope.ReadFile(x, input.Migration)
		if err != nil {
			return nil, fault.Input(err)
		}
		scripts = append(scripts, gate.SQLFile{Name: x, Src: src})
	}
	return scripts, nil
}

// lockPolicy puts what grades and accepts the locks phase's locks into req, when it traces
// them: production's table sizes (table_stats, --table-stats), read, and the reviewed locks
// (locks.accept).
func lockPolicy(cfg *config.Config, req *gate.Request) error {
	if !req.Steps.Locks {
		return nil
	}
	req.LockAccept, req.SlowStatement = cfg.LockAcceptances(), cfg.Locks.SlowStatement
	if cfg.TableStats == "" {
		return nil
	}
	st, err := locks.ReadStats(cfg.Scope, cfg.TableStats)
	if err != nil {
		return fault.Input(err)
	}
	req.TableStats = st
	return nil
}

// variant reads a variant's migration (and its previous version) for the gate: v is the
// configuration's variant at the dotted version 2 path key ("artifact", "ports.0"), called name
// in the report.
func variant(cfg *config.Config, key, name string, v config.Variant) (gate.Variant, error) {
	flag := "--port"
	if key == "artifact" {
		flag = "--artifact"
	}
	gv := gate.Variant{Name: name, File: v.File, Dim: v.Dim, DSN: v.DSN}
	switch {
	case v.File == "" && v.DSN == "":
		return gv, fault.Input(fmt.Errorf("the %s has no file; set %s.file in %s or pass %s", name, cfg.Key(key), orConfig(cfg), flag))
	case v.File == "" && v.Previous != "":
		return gv, fault.Input(fmt.Errorf("the %s is read from a database and has no file, so it has no upgrade audit: drop %s-previous, or pass its file with %s", name, flag, flag))
	case v.File == "":
		return gv, nil
	}
	src, err := cfg.Scope.ReadFile(v.File, input.Migration)
	if err != nil {
		return gate.Variant{}, fault.Input(err)
	}
	gv.Src = src
	if v.Previous != "" {
		prev, err := cfg.Scope.ReadFile(v.Previous, input.Migration)
		if err != nil {
			return gate.Variant{}, fault.Input(fmt.Errorf("%s.previous: %w", cfg.Key(key), err))
		}
		gv.Previous = &gate.SQLFile{Name: v.Previous, Src: prev}
	}
	return gv, nil
}
