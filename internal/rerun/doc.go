// Package rerun proves that a migration is safe to run again, and safe to run over its previous
// version, with no row lost: the ground truth behind the lint rule "not-idempotent".
//
// # The rerun audit
//
// The gate installs the prerequisites and the migration into a fresh scratch database, loads a
// fixture (by default the project's ledger fixture, see [FindDefaultFixture]), and takes a
// catalog snapshot and a content digest of every user table ([introspect.TakeDigest]: row count
// and an order-independent hash of the rows). It then applies the migration again, Times-1
// times. Each run must succeed, and after each the snapshot and every digest must equal the
// first. [Begin], [Rerun.Fill], [Rerun.Baseline] and [Rerun.Runs] are those steps on a
// database the gate prepared ([Prepared]), which the gate calls in order; [Rerun.Phase] is the
// result. Findings:
//
//   - rerun-failed: a run failed; the finding points at the statement (file:line:col) and carries
//     the server's error, detail and hint. Later runs are not attempted.
//   - rerun-catalog-changed: an object was created, dropped or changed by a run (a cosmetic
//     change, a function body whose layout or comments alone differ, is a warning).
//   - rerun-rows-lost, rerun-rows-duplicated, rerun-rows-changed, rerun-rows-added: a table's
//     rows, classified by [introspect.CompareRows]; a table a run dropped lost all its rows. The
//     environment's tables (storage.buckets, auth.users, cron.job, vault.secrets, pg_net's
//     queue) are compared too: another unnamed cron job or another queued request per run.
//   - rerun-sequence-reset: a run set a sequence back (its next value is one it handed out).
//   - rerun-large-objects-changed: a run created, changed or removed large objects.
//
// Each finding is reported once, at the first run that shows it.
//
// # Without a fixture
//
// With no [Options.Fixture], the tables the install created (and the tables their foreign keys
// reference) are filled with generated rows ([fill]) where the fixture would be loaded: after
// the install (and after the gate's probes, which read the install as it is), and in the
// upgrade audit after the previous version. The summary says how many rows ("over 24 generated
// rows in 6 tables (seed 1)"), and a note names each table left empty and why.
//
// # The upgrade audit
//
// With [Options.Previous], [StartUpgrade] installs the previous version into a database of its
// own, loads the fixture, digests the tables and applies the migration over it, while the rerun
// audit runs. [Upgrade.Phase] compares the upgraded catalog with the migration's fresh install
// (the rerun audit's database after the install, before the fixture), which it must equal, and
// no table may have fewer rows than before the upgrade:
//
//   - upgrade-failed: the migration failed over the previous version (the finding says why: the
//     server's error, say "cannot change return type of existing function", with its hint).
//   - upgrade-stale-object: the upgrade left behind an object a fresh install does not have (an
//     old overload, trigger, policy or column).
//   - upgrade-missing-object: a fresh install has an object the upgrade does not.
//   - upgrade-catalog-differs: an object differs between the upgrade and a fresh install.
//   - upgrade-rows-lost: a table has fewer rows than before the upgrade, or was dropped.
//   - upgrade-sequence-reset: the upgrade set a sequence back.
//   - upgrade-large-objects-lost: the upgrade removed or rewrote large objects.
//
// Roles are cluster-wide, shared by every database of the server (and changed by the other
// audits running at the same time), so neither audit compares them.
//
// # Failures to set up
//
// When the migration, the previous version or the fixture does not install on a fresh database
// the audit cannot run; that is a finding too (rerun-install-failed, rerun-fixture-failed,
// upgrade-previous-failed, upgrade-fixture-failed), at the failing statement. Errors returned
// by the audit's steps are infrastructure failures (no server, a dropped connection).
//
// # Parallelism
//
// The rerun audit and the upgrade audit each run in their own scratch database, concurrently. Each phase's duration tells how long its audit took.
package rerun
