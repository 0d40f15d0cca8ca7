package scratch

import (
	"context"
	"fmt"
	"sync"
)

// The Supabase environment of a template (the schemas, auth and storage, extensions and default
// privileges of its privilege model) does not depend on the template's dimension, and took
// about half of each template's build: a run with two dimensions and two privilege models built
// it four times. It is built once per privilege model instead, in a database of its own that
// each template built from nothing copies (CREATE DATABASE ... TEMPLATE), then adds the Open
// Brain prerequisites at its dimension. The environment database is no template the run's
// databases copy; it is dropped before the cluster is cached, so that no cache entry holds it.

// envTemplate is the environment database of one privilege model, built once.
type envTemplate struct {
	once sync.Once
	name string
	err  error
}

// environmentTemplate returns the name of the database that holds the Supabase environment of
// the privilege model priv and nothing else, building it on first use.
func (s *Server) environmentTemplate(ctx context.Context, priv PrivilegeModel) (string, error) {
	s.mu.Lock()
	if s.envs == nil {
		s.envs = map[PrivilegeModel]*envTemplate{}
	}
	e := s.envs[priv]
	if e == nil {
		e = &envTemplate{}
		s.envs[priv] = e
	}
	s.mu.Unlock()
	e.once.Do(func() {
		label := "env"
		if priv != NewProjectPrivileges {
			label = "env_" + string(priv[:3])
		}
		db, err := s.createDatabase(ctx, DefaultDim, "", label)
		if err != nil {
			e.err = err
			return
		}
		e.name = db.Name
		// The session is closed before anything copies the database.
		conn, err := s.connectAdminIn(ctx, db.Name)
		if err != nil {
			e.err = err
			return
		}
		defer conn.Close(context.WithoutCancel(ctx))
		e.err = s.execAdminOn(ctx, conn, s.environmentScripts(priv)...)
	})
	return e.name, e.err
}

// environmentScripts are the scripts of the environment of the privilege model priv: the
// environment, then, for the old defaults, their default privileges.
func (s *Server) environmentScripts(priv PrivilegeModel) []EnvScript {
	envs := s.environment()
	if priv == OldDefaultPrivileges {
		envs = append(envs, OldDefaultsScript(s.installRole, s.adminRole))
	}
	return envs
}

// dropEnvironmentTemplates drops the environment databases built so far (a later template
// builds its model's again).
func (s *Server) dropEnvironmentTemplates(ctx context.Context) error {
	s.mu.Lock()
	envs := s.envs
	s.envs = nil
	s.mu.Unlock()
	for _, e := range envs {
		e.once.Do(func() {}) // one still building is waited for
		if e.name == "" {
			continue
		}
		if err := s.drop(ctx, e.name); err != nil {
			return fmt.Errorf("dropping the environment database %s: %w", e.name, err)
		}
	}
	return nil
}
