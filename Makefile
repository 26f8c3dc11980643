# The two commands of the README: `make run` (set up, then dbt build on an embedded
# local Spark) and `make test` (set up, then the CI tier of the test suite). Setup is
# idempotent: the virtual environment is created once and refreshed only when the
# dependency files change.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.bench-installed
ADAPTER_SOURCES := $(shell find adapter -type f \( -name '*.py' -o -name '*.yml' -o -name '*.sql' -o -name '*.toml' \) 2>/dev/null)

export SPARK_LOCAL_IP := 127.0.0.1
export PYSPARK_PYTHON := $(BIN)/python
export PYSPARK_DRIVER_PYTHON := $(BIN)/python
export STREAM_WINDOWS_SPARK_DIR := $(CURDIR)/.spark
export DBT_PROFILES_DIR := $(CURDIR)
export DBT_SEND_ANONYMOUS_USAGE_STATS := false
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: setup run test test-fast test-all durations-table show docs pictures bench lint clean java browser cluster-up cluster-down connect-up connect-down thrift-up thrift-down

setup: java browser $(STAMP)

java:
	@command -v java >/dev/null 2>&1 || { \
	  echo "Java not found: installing a headless OpenJDK 17 (Spark's JVM)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless; }

# Headless Chromium and its WebDriver, for the docs site's browser test (tests/docs).
browser:
	@{ test -x /usr/bin/chromium && test -x /usr/bin/chromedriver; } || { \
	  echo "Chromium not found: installing Debian's chromium and chromium-driver (the docs site's browser test)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; }

$(STAMP): pyproject.toml constraints.txt $(ADAPTER_SOURCES)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[project]'
	$(BIN)/python -m pip install -q -c constraints.txt --force-reinstall --no-deps ./adapter
	@mkdir -p .spark
	@touch $(STAMP)

run: setup
	$(BIN)/dbt build

# The test tiers, by pytest marker (docs/development.md, "The test suite"):
# test-fast, the inner loop: no Spark, within a minute (the engine, the benchmark
#   report, the pictures);
# test, the README's test command and CI's: every test not marked `proof`, within 20
#   minutes on a quiet machine;
# test-all: test plus the `proof` tier (the random-cut and fault-sequence replays, the
#   killed run, the cluster, the many-example properties, dbt's adapter suites on four
#   ways to reach Spark), within 75 minutes.
# Each run leaves every test's seconds in .spark/durations-<tier>.json; `make
# durations-table` keeps the newest in bench/results/suite/ and regenerates
# docs/development.md's table from it.
# Two pytest processes side by side: the tests that share the suite's Spark, and those
# that share nothing with it (-m isolated: no Spark, or their own in a subprocess). The
# second's report follows the first's; their durations are merged into one file.
test: setup
	@mkdir -p .spark; \
	$(BIN)/python -m pytest -m "isolated and not proof" --durations-json .spark/durations-test-isolated.json \
		> .spark/test-isolated.log 2>&1 & isolated=$$!; \
	$(BIN)/python -m pytest -m "not proof and not isolated" --durations-json .spark/durations-test-shared.json; shared=$$?; \
	wait $$isolated; other=$$?; \
	echo; echo "=== the isolated tests (second process, .spark/test-isolated.log) ==="; \
	if [ $$other -eq 0 ]; then tail -n 4 .spark/test-isolated.log; else cat .spark/test-isolated.log; fi; \
	$(BIN)/python scripts/suite_durations.py merge .spark/durations-test.json \
		.spark/durations-test-shared.json .spark/durations-test-isolated.json; \
	test $$shared -eq 0 -a $$other -eq 0

test-fast: setup
	$(BIN)/python -m pytest -m fast tests/engine tests/bench tests/docs tests/package

test-all: setup
	$(BIN)/python -m pytest --durations-json .spark/durations-all.json

durations-table: setup
	$(BIN)/python scripts/suite_durations.py save $$(ls -t .spark/durations-*.json | head -1)
	$(BIN)/python scripts/suite_durations.py table

# A model's first rows, after `make run`: make show MODEL=weather_minmax_24h [LIMIT=50];
# several models (MODEL="a b") one after the other: dbt show previews the first model
# it selects only.
show: setup
	@test -n "$(MODEL)" || { echo "usage: make show MODEL=<model name> [LIMIT=20]"; exit 2; }
	@for model in $(MODEL); do $(BIN)/dbt show --select $$model --limit $(or $(LIMIT),20) || exit 1; done

docs: setup
	$(BIN)/dbt docs generate
	$(BIN)/dbt docs serve --host 127.0.0.1 --port $${DOCS_PORT:-8080} --no-browser

# Redraw the window pictures (docs/pictures/*.svg) from the seeds; no Spark.
pictures: setup
	$(BIN)/python docs/pictures/draw_windows.py

# DuckDB and Polars, which the bench compares the engine with (bench/single_machine.py):
# installed here, not by setup, so make test and make run do not download them.
$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[project,bench]'
	@touch $(BENCH_STAMP)

bench: setup $(BENCH_STAMP)
	$(BIN)/python -m bench $(BENCH)

lint: setup
	$(BIN)/sqlfluff lint models
	cd macros && $(BIN)/sqlfluff lint .
	cd tests/dbt && $(BIN)/sqlfluff lint .
	$(BIN)/ruff check .

clean:
	rm -rf target logs .spark

cluster-up: setup
	$(BIN)/python scripts/standalone_cluster.py up

cluster-down: setup
	$(BIN)/python scripts/standalone_cluster.py down

# A Spark Connect server (target connect) or a Spark Thrift Server (target thrift) on
# 127.0.0.1, owning the catalog in .spark/ (the tables `make run` builds): while one is
# up, any number of dbt processes build against it at once (docs/adapter.md).
connect-up: setup
	$(BIN)/python scripts/spark_servers.py connect up

connect-down: setup
	$(BIN)/python scripts/spark_servers.py connect down

thrift-up: setup
	$(BIN)/python scripts/spark_servers.py thrift up

thrift-down: setup
	$(BIN)/python scripts/spark_servers.py thrift down
