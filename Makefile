# cdc-lake: the two commands of the README are `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DBT := $(BIN)/dbt
DBT_FLAGS := --profiles-dir profiles
JARS := .jars
# Pipeline test modules `make test` runs as a second session beside the others.
BESIDE := udfs/tests/pipeline/test_incremental.py udfs/tests/pipeline/test_fuzzing.py \
  udfs/tests/pipeline/test_truth.py

.PHONY: run test test-deps setup lint lint-python lint-sql format serve stop load-samples build docs benchmark clean

## run: set up, start the embedded server, load the bundled samples, dbt build, print the current state
run: setup serve load-samples
	CDC_LAKE_SAMPLES=true $(DBT) build $(DBT_FLAGS)
	@$(BIN)/cdc-lake sql "select table_key, primary_key, is_deleted, last_op, \
	  cast(last_source_ts as string) as last_source_ts, to_json(row_data) as row_data \
	  from cdc_lake.cdc_current_state order by table_key, primary_key"
	@echo "The server keeps running for dbt by hand (make stop to end it)."

## test: set up, then the fast tier: ruff, and every test that needs no Spark server
## (udfs/tests/unit/, `pytest -m "not spark"`); it stops here on a failure. Then the
## tests against a real Spark Thrift server (udfs/tests/pipeline/, `pytest -m spark`) as two
## sessions at once, each with a server of its own: the modules in BESIDE (pipelines of
## their own, none reads the shared build) and the rest. They wait on their servers, and the
## servers on them, much of the time, so two keep the cores busier than one. The SQL lint
## runs beside them at the lowest CPU priority, on the cycles they leave; the reports follow
## in turn, and any failing fails the target. pytest exits 5 when it collects no test, so
## no tier passes empty.
## Linux gives each session a CPU share of its own (autogroups) and the server runs in a
## session of its own, so a plain `nice` would not yield to the server: the lint gets a
## session whose autogroup is niced too.
test: setup lint-python
	$(BIN)/pytest -m "not spark"
	@$(MAKE) --no-print-directory test-deps
	@log=$$(mktemp); \
	setsid -w sh -c '{ echo 19 >/proc/self/autogroup; } 2>/dev/null; \
	  exec nice -n 19 $(MAKE) --no-print-directory lint-sql' >"$$log" 2>&1 & lint=$$!; \
	beside=$$(mktemp); \
	$(BIN)/pytest -m spark -p no:cacheprovider $(BESIDE) >"$$beside" 2>&1 & side=$$!; \
	$(BIN)/pytest -m spark $(addprefix --ignore=,$(BESIDE)); tests=$$?; \
	wait $$side; sided=$$?; echo "--- beside: $(BESIDE)"; cat "$$beside"; rm -f "$$beside"; \
	wait $$lint; linted=$$?; cat "$$log"; rm -f "$$log"; \
	[ $$sided = 0 ] || echo "the tests beside failed (above)"; \
	[ $$linted = 0 ] || echo "make lint-sql failed (above)"; \
	[ $$tests = 0 ] && [ $$sided = 0 ] && [ $$linted = 0 ]

## test-deps: what the tests need besides Python and Java: the jars of a Kafka broker and of a
## Kafka Connect worker with Debezium's connectors (the tests start both), and servers from
## Debian's packages that tests start in folders of their own: OpenLDAP's slapd
## (pipeline/test_auth.py), MariaDB and PostgreSQL (pipeline/test_truth.py). As root on Debian
## they are installed, binaries only: no service is configured or started here
## (slapd/no_configuration). Otherwise this says what to install; those tests then fail.
test-deps: $(JARS)/kafka-broker/.fetched $(JARS)/kafka-connect/.fetched
	@missing=""; \
	command -v slapd >/dev/null || [ -x /usr/sbin/slapd ] || missing="slapd"; \
	[ -x /usr/sbin/mariadbd ] || missing="$$missing mariadb-server"; \
	ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing="$$missing postgresql"; \
	if [ -z "$$missing" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "slapd slapd/no_configuration boolean true" | debconf-set-selections && \
	  { DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing || \
	    { apt-get update -q && \
	      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; }; }; \
	else \
	  echo "the pipeline tests start servers from Debian's packages: as root, apt-get install$$missing"; \
	fi

## setup: the virtual environment with the pinned dependencies, and Spark's Kafka source
## (needs python3, Java 17 and Maven)
setup: $(VENV)/.installed $(JARS)/spark-kafka/.fetched

## The jars of pom.xml's profiles, each into .jars/<profile>/ (git-ignored): Maven reads the
## user's settings (mirrors, proxies), which Spark's own package download does not. Of
## spark-kafka only what pyspark's jars lack; of kafka-broker and kafka-connect the whole runtime.
$(JARS)/spark-kafka/.fetched: pom.xml
	@command -v mvn >/dev/null || \
	  { echo "Maven not found: setup fetches Spark's Kafka source with it (apt-get install maven)"; exit 1; }
	rm -rf $(@D)
	mvn -q -B -Dstyle.color=never -P spark-kafka dependency:copy-dependencies -DoutputDirectory=$(@D) \
	  -DincludeArtifactIds=spark-sql-kafka-0-10_2.13,spark-token-provider-kafka-0-10_2.13,kafka-clients,commons-pool2
	touch $@

$(JARS)/kafka-connect/.fetched: pom.xml
	@command -v mvn >/dev/null || \
	  { echo "Maven not found: the tests fetch Kafka Connect and Debezium with it (apt-get install maven)"; exit 1; }
	rm -rf $(@D)
	mvn -q -B -Dstyle.color=never -P kafka-connect dependency:copy-dependencies -DoutputDirectory=$(@D) -DincludeScope=runtime
	touch $@

$(JARS)/kafka-broker/.fetched: pom.xml
	@command -v mvn >/dev/null || \
	  { echo "Maven not found: the tests fetch their Kafka broker with it (apt-get install maven)"; exit 1; }
	rm -rf $(@D)
	mvn -q -B -Dstyle.color=never -P kafka-broker dependency:copy-dependencies -DoutputDirectory=$(@D) -DincludeScope=runtime
	touch $@

## Iceberg's Spark runtime for the peer benchmark (udfs/benchmarks/bench_peers.py fetches it)
$(JARS)/peer/.fetched: pom.xml
	@command -v mvn >/dev/null || \
	  { echo "Maven not found: the peer benchmark fetches Iceberg with it (apt-get install maven)"; exit 1; }
	rm -rf $(@D)
	mvn -q -B -Dstyle.color=never -P peer dependency:copy-dependencies -DoutputDirectory=$(@D) -DexcludeTransitive=true
	touch $@

$(VENV)/.installed: pyproject.toml
	@command -v java >/dev/null || [ -x "$$JAVA_HOME/bin/java" ] || \
	  { echo "Java not found: Spark needs Java 17 (apt-get install openjdk-17-jre-headless)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

## lint: ruff, and sqlfluff on every core (templating and parsing the models and tests with
## the macros is CPU-bound; a macro file is templated without the other macros, see
## macros/.sqlfluff)
lint: lint-python lint-sql

lint-python: setup
	$(BIN)/ruff check udfs
	$(BIN)/ruff format --check udfs

lint-sql: setup
	$(BIN)/sqlfluff lint --processes 0 models macros tests

format: setup
	$(BIN)/ruff format udfs
	$(BIN)/ruff check --fix udfs
	$(BIN)/sqlfluff fix --processes 0 models macros tests

serve: setup
	@$(BIN)/cdc-lake status >/dev/null || $(BIN)/cdc-lake serve

stop: setup
	$(BIN)/cdc-lake stop

## load-samples: every bundled sample folder seeds/samples/<format>/ into cdc_raw.<format>
load-samples: setup
	@for dir in seeds/samples/*/; do \
	  $(BIN)/cdc-lake load --format "$$(basename "$$dir")" "$$dir" || exit 1; \
	done

build: setup
	$(DBT) build $(DBT_FLAGS)

docs: setup
	$(DBT) docs generate $(DBT_FLAGS)
	$(DBT) docs serve $(DBT_FLAGS) --port 8080

benchmark: setup
	$(BIN)/python udfs/benchmarks/bench_load.py
	$(BIN)/python udfs/benchmarks/bench_pipeline.py --check

clean:
	-$(BIN)/cdc-lake stop
	rm -rf .cdc-lake target logs $(JARS)
