# Two commands: `make run` and `make test`. Everything else is a step of those.
SHELL := /bin/bash
ROOT := $(shell pwd)
export PGPORT ?= 55432
export PGDATA ?= $(ROOT)/.pgdata
export PG_HOST ?= 127.0.0.1
export PG_PORT ?= $(PGPORT)
export PG_DB ?= queen
# The broker's login (docs/procedures.md, Roles); scripts/db-deploy.sh sets its password. Tests set up
# and inspect the database as the superuser postgres (PG_SUPERUSER, tests/harness/README.md).
export PG_USER ?= queen_broker
export PG_PASSWORD ?= queen_broker
BUILD ?= $(ROOT)/build
# The previous release's broker (scripts/build-previous.sh), for tests/upgrade.
BUILD_PREV ?= $(ROOT)/build-prev
# docker/Dockerfile carried out without an engine (tests/deploy_files): one directory per stage, the build
# stage's compile kept between runs like any build directory.
BUILD_DOCKER ?= $(ROOT)/build-docker
JOBS ?= $(shell nproc)
# Sanitizer builds (docs/testing.md "Sanitizers"): every report aborts the process, so ctest and pytest fail on it.
ASAN_BUILD ?= $(ROOT)/build-asan
TSAN_BUILD ?= $(ROOT)/build-tsan
SANITIZER_FILES := $(ROOT)/tests/sanitizers
ASAN_ENV := ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:disable_coredump=1 \
	LSAN_OPTIONS=suppressions=$(SANITIZER_FILES)/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1:disable_coredump=1
TSAN_ENV := TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(SANITIZER_FILES)/tsan.supp"
# -O1 with line tables (-g1: reports keep file:line) and assertions on: the usual sanitizer trade-off, and less
# compile and link time than -O2 -g. Built whole every time, they compile the modules in unity batches.
# -Werror is enforced by the regular build (`make build`, `make test`); instrumented code makes GCC warn
# falsely (maybe-uninitialized, stringop-overflow), so the sanitizer builds report warnings without failing.
SANITIZER_CMAKE := -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g1 -O1" -DQUEEN_WERROR=OFF -DQUEEN_UNITY_BUILD=ON

.PHONY: run test deps deps-test pg db sql build test-sql test-unit test-integration test-contract test-dashboard test-docs test-fault test-ha test-failover bench deps-bench stop clean web \
	build-previous test-upgrade test-tagged test-managed test-deploy-files dashboard-screenshots \
	build-asan build-tsan test-asan test-asan-unit test-asan-integration test-tsan

# `make run` installs only what running needs; `make test` (deps-test) adds the test toolchain (scripts/deps.sh).
deps:
	@scripts/deps.sh run

deps-test:
	@scripts/deps.sh test

pg: deps
	@scripts/pg.sh start

db: pg
	@scripts/db-deploy.sh

# The program change's scripts from sql/queen and sql/queen_internal (sql/README.md), committed with the files;
# `make db` and `make test` refuse scripts that are not what the files make.
sql:
	@scripts/sql_program.py generate

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

run: db build
	@echo "queen: psql -h 127.0.0.1 -p $(PGPORT) -U postgres -d $(PG_DB)   (the broker connects as $(PG_USER))"
	@echo "queen: broker on http://127.0.0.1:$${PORT:-6632}"
	exec $(BUILD)/queen-broker

test: deps-test db build
	$(MAKE) -k --no-print-directory test-sql test-tagged test-unit lint test-integration test-contract test-dashboard test-docs test-fault test-ha test-failover test-deploy-files test-fuzz-e2e fuzz-smoke test-upgrade test-managed

# pgTAP runs on the round trip's freshly deployed scratch database (see the script); tests/schema proves that
# a database deployed, upgraded from every release or reverted to one holds exactly the program files.
test-sql:
	scripts/sqitch-roundtrip.sh --prove
	/usr/bin/python3 -m pytest -q tests/schema

test-unit:
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# A change a tag of sqitch.plan contains is never edited (docs/upgrading.md): its deploy, revert and verify
# scripts must equal those of the tag's commit (NAME@TAG.sql once reworked).
test-tagged:
	scripts/sqitch_release.py check-tagged
	scripts/sql_program.py check

# The previous release's broker, built from the commit of the plan's previous tag into $(BUILD_PREV) (only the
# queen-broker target; a second run finds it up to date). .ci/run starts it early, niced, in the background.
build-previous: deps
	BUILD_PREV=$(BUILD_PREV) JOBS=$(JOBS) scripts/build-previous.sh

# From the previous release to this tree and back (tests/upgrade, docs/upgrading.md): its schema and broker
# filled with every kind of state, sqitch deploy under that broker, this tree's broker serving it, revert, deploy.
test-upgrade: build-previous
	QUEEN_BROKER_BIN=$(BUILD)/queen-broker BUILD_PREV=$(BUILD_PREV) /usr/bin/python3 -m pytest -q tests/upgrade

# The schema deployed, served and upgraded on a PostgreSQL set up as a managed one (tests/managed,
# docs/deploy-managed-postgres.md): TLS with a CA of the suite's own, a deploying login that is no superuser and
# holds no role attribute, the previous release's broker before the upgrade.
test-managed: build-previous
	QUEEN_BROKER_BIN=$(BUILD)/queen-broker BUILD_PREV=$(BUILD_PREV) /usr/bin/python3 -m pytest -q tests/managed

# clang-tidy with the agreed check list of .clang-tidy over src/ and bench/ (the build is -Werror already).
.PHONY: lint
lint: deps-test build
	BUILD=$(BUILD) JOBS=$(JOBS) scripts/lint.sh

test-integration:
	QUEEN_BROKER_BIN=$(BUILD)/queen-broker /usr/bin/python3 -m pytest -q tests/integration

# Every route against real brokers, each answer checked against docs/openapi.json (tests/contract/conftest.py).
test-contract:
	QUEEN_BROKER_BIN=$(BUILD)/queen-broker /usr/bin/python3 -m pytest -q tests/contract

# The dashboard in headless Chromium (selenium) against real brokers; screenshots land in the run's
# directory under .test-tmp (docs/dashboard.md, "Tests").
test-dashboard:
	QUEEN_BROKER_BIN=$(BUILD)/queen-broker /usr/bin/python3 -m pytest -q tests/dashboard

# Every curl and psql example of README.md and docs/*.md, extracted from the Markdown and run in document order
# against a broker and database of each file's own (docs/testing.md, "Documentation examples").
test-docs:
	QUEEN_BROKER_BIN=$(BUILD)/queen-broker /usr/bin/python3 -m pytest -q tests/docs_examples

# The deployment files (docs/deploy.md, "How these files are tested"): the systemd unit checked by systemd-analyze
# and run as written, the Kubernetes manifests against the API's schemas and types (npm packages of
# tests/deploy_files, installed by deps-test) and against the broker, and docker/Dockerfile's stages carried out
# into $(BUILD_DOCKER) (its build stage compiles the broker as `make build` does, so ccache serves it from that
# build; a cold compile outlasts pytest.ini's 300 s stack-dump timer, hence the longer one).
test-deploy-files:
	QUEEN_BROKER_BIN=$(BUILD)/queen-broker BUILD_DOCKER=$(BUILD_DOCKER) \
	  /usr/bin/python3 -m pytest -q -o faulthandler_timeout=1800 tests/deploy_files

# Copies the screenshots docs/dashboard.md shows from the newest `make test-dashboard` run into docs/img (commit
# them with the change they show).
dashboard-screenshots:
	@shots=$$(ls -d $${QUEEN_TEST_TMP:-.test-tmp}/run-*/dashboard-screenshots/docs 2>/dev/null | sort | tail -n 1); \
	if [ -z "$$shots" ]; then echo "no dashboard screenshots: run make test-dashboard first" >&2; exit 1; fi; \
	cp -v "$$shots"/dashboard-*.png docs/img/

# Re-vendors the dashboard's charting library from npm (web/package-lock.json). Not part of `make run`: the
# vendored files are committed, and the broker compiles web/ in (docs/dashboard.md, "Assets").
web:
	cd web && npm ci --no-audit --no-fund
	cp web/node_modules/uplot/dist/uPlot.iife.min.js web/vendor/uplot.iife.min.js
	cp web/node_modules/uplot/dist/uPlot.min.css web/vendor/uplot.min.css
	cp web/node_modules/uplot/LICENSE web/vendor/uplot.LICENSE

test-fault:
	QUEEN_BROKER_BIN=$(BUILD)/queen-broker /usr/bin/python3 -m pytest -q tests/fault

test-ha:
	QUEEN_BROKER_BIN=$(BUILD)/queen-broker /usr/bin/python3 -m pytest -q tests/ha

# PostgreSQL failover under running brokers: a primary and a synchronous streaming standby of the suite's own.
test-failover:
	QUEEN_BROKER_BIN=$(BUILD)/queen-broker /usr/bin/python3 -m pytest -q tests/failover

# End-to-end fuzz run (docs/fuzzing.md, "End-to-end run"): mutated requests over raw sockets against a real
# broker on a fresh database, then liveness, RSS and an exact ledger check. `make test` runs a 20,000-request
# slice; `make fuzz-e2e` runs FUZZ_E2E_REQUESTS (1,000,000). FUZZ_E2E_SEED replays a run.
.PHONY: test-fuzz-e2e fuzz-e2e
# The slice inside `make test` replays one fixed generation (FUZZ_E2E_SEED overrides); `make fuzz-e2e` draws a new one.
test-fuzz-e2e:
	FUZZ_E2E_SEED=$${FUZZ_E2E_SEED:-20261130} QUEEN_BROKER_BIN=$(BUILD)/queen-broker /usr/bin/python3 -m pytest -q tests/fuzz_e2e

fuzz-e2e: db build
	QUEEN_BROKER_BIN=$(BUILD)/queen-broker /usr/bin/python3 tests/fuzz_e2e/fuzz_e2e.py

# libFuzzer harnesses of every parser that takes outside bytes (docs/fuzzing.md, "Coverage-guided harnesses"),
# built with clang-14 into build-fuzz. `make fuzz` runs each for FUZZ_SECONDS (or only FUZZ_TARGETS); `make
# fuzz-smoke` (part of `make test`) runs the committed corpus plus FUZZ_SMOKE_SECONDS of mutation each.
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 10
FUZZ_TARGETS ?=
.PHONY: fuzz fuzz-smoke build-fuzz
# The harnesses alone (.ci/run builds them early, niced, beside make test; fuzz-smoke then finds them built).
build-fuzz: deps-test
	JOBS=$(JOBS) fuzz/run.sh build

fuzz: deps-test
	JOBS=$(JOBS) FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh fuzz $(FUZZ_TARGETS)
	$(MAKE) --no-print-directory fuzz-e2e

fuzz-smoke: deps-test
	JOBS=$(JOBS) FUZZ_SMOKE_SECONDS=$(FUZZ_SMOKE_SECONDS) fuzz/run.sh smoke $(FUZZ_TARGETS)

# AddressSanitizer + UndefinedBehaviorSanitizer: the unit tests, then tests/integration against an
# instrumented broker (a report aborts it; the harness fails the test during which that happened).
build-asan: deps-test
	@cmake -S . -B $(ASAN_BUILD) $(SANITIZER_CMAKE) -DQUEEN_SANITIZE=address,undefined >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS) --target unit-tests queen-broker

test-asan: db build-asan
	$(MAKE) -k --no-print-directory test-asan-unit test-asan-integration

test-asan-unit:
	cd $(ASAN_BUILD) && $(ASAN_ENV) ctest --output-on-failure -j $(JOBS)

test-asan-integration:
	$(ASAN_ENV) QUEEN_BROKER_BIN=$(ASAN_BUILD)/queen-broker /usr/bin/python3 -m pytest -q tests/integration

# ThreadSanitizer: the unit tests only.
build-tsan: deps-test
	@cmake -S . -B $(TSAN_BUILD) $(SANITIZER_CMAKE) -DQUEEN_SANITIZE=thread >/dev/null
	@cmake --build $(TSAN_BUILD) -j $(JOBS) --target unit-tests

test-tsan: build-tsan
	cd $(TSAN_BUILD) && $(TSAN_ENV) ctest --output-on-failure -j $(JOBS)

# RabbitMQ anchor (bench/README.md, "RabbitMQ anchor"): its server and client library are installed only here,
# before `build` configures CMake, which builds the anchor only when it finds librabbitmq.
deps-bench:
	@scripts/deps.sh bench

bench: deps-bench db build
	scripts/bench.sh

stop:
	@scripts/pg.sh stop

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(BUILD_PREV) $(BUILD_DOCKER)
