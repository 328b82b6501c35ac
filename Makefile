# Two commands: `make run` and `make test`. Everything else is a step of those.
SHELL := /bin/bash
ROOT := $(shell pwd)
export PGPORT ?= 55432
export PGDATA ?= $(ROOT)/.pgdata
export PG_HOST ?= 127.0.0.1
export PG_PORT ?= $(PGPORT)
export PG_DB ?= queen
export PG_USER ?= postgres
export PG_PASSWORD ?= postgres
BUILD ?= $(ROOT)/build
JOBS ?= $(shell nproc)

.PHONY: run test deps pg db build test-sql test-unit test-integration test-fault test-ha bench stop clean

deps:
	@scripts/deps.sh

pg: deps
	@scripts/pg.sh start

db: pg
	@scripts/db-deploy.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

run: db build
	@echo "queen: psql -h 127.0.0.1 -p $(PGPORT) -U postgres -d $(PG_DB)"
	@echo "queen: broker on http://127.0.0.1:$${PORT:-6632}"
	exec $(BUILD)/queen-broker

test: db build
	$(MAKE) -k --no-print-directory test-sql test-unit test-integration test-fault test-ha test-fuzz-e2e

test-sql:
	scripts/sqitch-roundtrip.sh
	pg_prove -h 127.0.0.1 -p $(PGPORT) -U postgres -d $(PG_DB) --recurse --ext .sql sql/tests

test-unit:
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-integration:
	QUEEN_BROKER_BIN=$(BUILD)/queen-broker /usr/bin/python3 -m pytest -q tests/integration

test-fault:
	QUEEN_BROKER_BIN=$(BUILD)/queen-broker /usr/bin/python3 -m pytest -q tests/fault

test-ha:
	QUEEN_BROKER_BIN=$(BUILD)/queen-broker /usr/bin/python3 -m pytest -q tests/ha

# End-to-end fuzz run (docs/fuzzing.md, "End-to-end run"): mutated requests over raw sockets against a real
# broker on a fresh database, then liveness, RSS and an exact ledger check. `make test` runs a 20,000-request
# slice; `make fuzz-e2e` runs FUZZ_E2E_REQUESTS (1,000,000). FUZZ_E2E_SEED replays a run.
.PHONY: test-fuzz-e2e fuzz-e2e
test-fuzz-e2e:
	QUEEN_BROKER_BIN=$(BUILD)/queen-broker /usr/bin/python3 -m pytest -q tests/fuzz_e2e

fuzz-e2e: db build
	QUEEN_BROKER_BIN=$(BUILD)/queen-broker /usr/bin/python3 tests/fuzz_e2e/fuzz_e2e.py

bench: db build
	scripts/bench.sh

stop:
	@scripts/pg.sh stop

clean:
	rm -rf $(BUILD)
