# Consilium — the two commands: `make run` and `make test`. Both install what is missing first.
SHELL := /bin/bash
.DEFAULT_GOAL := help
CARGO_TEST_LOG := target/cargo-test.log
# make test runs the integration tests a second time against PostgreSQL (a fresh database per test,
# created through this URL, whose user may CREATE DATABASE).
PG_TEST_URL ?= postgres://postgres@127.0.0.1:5432/test
# The second pass runs only the tests whose subject is what gets stored (debates, logs, judges,
# sessions, the track record); input checks, limits, TLS, agent kinds and eval are the same on
# either database, and postgres.rs already ran against PostgreSQL in the first pass.
# They are modules of one test binary (server/tests/integration/), chosen by name filters.
PG_PASS := http_api protocols escalation gate credibility judges access export verify reconcile
# Every cargo test below selects the same packages, so all three share one feature resolution and
# nothing is compiled twice (`-p server` alone resolved features differently and rebuilt app and
# server: minutes of CPU and another set of artefacts on disk).
CARGO_TEST := cargo test --workspace --exclude frontend

.PHONY: help setup site build run test test-rust test-e2e bench fmt lint clean-data

help:
	@echo "make run    set up, build and serve Consilium on http://127.0.0.1:3000 (SQLite in data/)"
	@echo "make test   set up and run every test: unit, integration (real binary + SQLite, then PostgreSQL), a real small model (SmolLM2 via llama.cpp), Playwright"
	@echo "make bench  what each page fetches, orchestration overhead per agent turn (in memory, SQLite), live fan-out (consilium load), then the README's figures to compare"

setup:
	scripts/setup.sh

site: setup
	scripts/build-site.sh

build: site
	cargo build --release -p server

run: build
	target/release/consilium serve

test: site
	scripts/setup.sh --with-browser
	@mkdir -p target
	@# --lib --bins --tests: there are no doctests, so rustdoc is not run at all.
	set -o pipefail; CONSILIUM_TEST_PG=$(PG_TEST_URL) \
		$(CARGO_TEST) --lib --bins --tests 2>&1 | tee $(CARGO_TEST_LOG)
	set -o pipefail; CONSILIUM_TEST_DB=$(PG_TEST_URL) CONSILIUM_TEST_PG=$(PG_TEST_URL) \
		$(CARGO_TEST) --test integration -- $(addsuffix ::,$(PG_PASS)) 2>&1 | tee -a $(CARGO_TEST_LOG)
	@# A model server this run starts is stopped after the browser tests; one already running is kept.
	@mkdir -p target/llm; if scripts/llm.sh status >/dev/null 2>&1; then touch target/llm/.kept; else rm -f target/llm/.kept; fi
	scripts/llm.sh start
	set -o pipefail; CONSILIUM_TEST_LLM_URL=http://127.0.0.1:$${LLM_PORT:-8091}/v1 \
		CONSILIUM_TEST_EMBED_URL=http://127.0.0.1:$${LLM_EMBED_PORT:-8092}/v1 \
		$(CARGO_TEST) --test integration -- real_model:: --ignored --nocapture 2>&1 | tee -a $(CARGO_TEST_LOG)
	cd end2end && npx playwright test
	@[ -f target/llm/.kept ] || scripts/llm.sh stop
	@echo "== cargo test summary =="; grep -E '^test result:' $(CARGO_TEST_LOG) | grep -v ' 0 passed; 0 failed' || true

bench: site
	python3 scripts/bundle-sizes.py target/site/pkg
	cargo run --release -p server -- bench
	cargo run --release -p server -- bench reconcile
	scripts/bench-load.sh
	@echo "== this machine: $$(nproc) cores =="
	python3 scripts/readme-figures.py README.md

fmt:
	cargo fmt --all

# The workspace's clippy lints (Cargo.toml) as errors: every native target, then the browser
# half — the wasm entry crate and `app` with `hydrate` — for the wasm target it is built for
# (natively it would compile `app` a second time with both features at once).
lint:
	cargo clippy --version >/dev/null 2>&1 || rustup component add clippy
	rustup target list --installed | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
	cargo clippy --workspace --exclude frontend --all-targets -- -D warnings
	cargo clippy -p frontend --target wasm32-unknown-unknown -- -D warnings
