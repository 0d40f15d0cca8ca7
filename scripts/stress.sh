#!/usr/bin/env bash
# The tests whose verdicts could depend on timing (the warden charging a change to the run's role
# or databases to the statement that made it, roles taken by turns, variants installing side by
# side), run COUNT times each with GOMAXPROCS 1 and 2 while busy loops keep every core loaded:
# the blame and the exit code must never change. `make stress` (COUNT=2 by default), run by CI.
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-2}"
go="${GO:-go}"
pids=()
stop() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap stop EXIT
# Two busy loops per core, so that every test process competes for the CPU.
for _ in $(seq $(($(nproc) * 2))); do
	(while :; do :; done) &
	pids+=($!)
done
"$go" test -count="$count" -cpu 1,2 -timeout 30m \
	-run 'TestChangedPasswordIsChargedToItsStatement|TestChangeByTriggerIsChargedToItsStatement|TestChangeIsChargedToTheScriptThatMadeIt|TestEveryChangeToTheRunIsStopped|TestChangeToAnotherDatabaseIsChargedToItsMaker|TestOrdinaryRoleWorkIsNotStopped|TestRoleTurnsSetTheirRolesAside' \
	./internal/scratch/
"$go" test -count="$count" -cpu 1,2 -timeout 30m \
	-run 'TestRoleCreatingFileIsAuditedUnderBothModels|TestVariantsCreatingTheSameRoleInstallAlike|TestUpgradeOfARoleCreatingFileHasTheRolesToItself' \
	./internal/gate/
# The environment-breaking cases, each a check of the port with one statement appended, with
# every core busy: several touch what the other variant's installs need too (its databases, the
# role both run as), and the finding must stay at the port's line, with exit 1, however the
# variants' statements interleave. make test runs them unloaded (the load was its own CPU
# spent, 20 s of the suite's). With them, a port that terminates every session of the role both
# variants run as, at whatever step of the other variant's that lands (COUNT times): a report
# with findings, never an exit 3.
"$go" test -count=1 -timeout 30m -run 'TestMigrationBreakingItsEnvironmentIsAFinding$' ./cmd/ledgercheck/
"$go" test -count="$count" -cpu 1,2 -timeout 30m -run 'TestMigrationTerminatingSessionsIsAFinding$' ./cmd/ledgercheck/
