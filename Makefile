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
PG_PASS := http_api protocols escalation gate credibility judges access export fork verify reconcile live_calls
# Every cargo test below selects the same packages, so all three share one feature resolution and
# nothing is compiled twice (`-p server` alone resolved features differently and rebuilt app and
# server: minutes of CPU and another set of artefacts on disk).
CARGO_TEST := cargo test --workspace --exclude frontend

.PHONY: help setup xtask site build run viewer dist test test-rust test-e2e bench fmt lint clean-data

help:
	@echo "make run     build what serving needs and serve Consilium on http://127.0.0.1:3000 (SQLite in data/)"
	@echo "make test    install what the tests need and run every test: unit, integration (real binary + SQLite,"
	@echo "             then PostgreSQL), the docs checks, a real small model (SmolLM2 via llama.cpp), Playwright"
	@echo "make viewer  the static judge viewer (target/viewer-static/), for any static host"
	@echo "make dist    a whole-program-optimised binary to package: target/dist/consilium"
	@echo "make bench   what each page fetches, orchestration overhead per agent turn, live fan-out (dist build)"

# The build's own tasks (xtask/: the site, the sentence model, the vendor check), compiled with
# the server's dependency resolution (`-p server`), so the crates they share are compiled once for
# both.
XTASK := target/debug/xtask
XTASK_BUILD := cargo build -p server --bin consilium -p xtask --bin xtask

# The tools serving needs (the wasm target, npm's wasm-opt).
setup:
	@scripts/setup.sh run

# The build's own tasks alone (what `site` and `test` need before they start).
xtask: setup
	@[ -x $(XTASK) ] || printf '\033[1m==> %s\033[0m\n' "compiling the build's own tasks (xtask; ~3 min the first time)"
	@cargo build --quiet -p server -p xtask --bin xtask
	@$(XTASK) embedder

# The whole site: the split bundle, the offline viewer (viewer.html) and the live bundles.
site: xtask
	$(XTASK) site all

# What serving needs: the server (with the build's own tasks, in the same cargo run) and the
# browser bundle's compile start together — each has stretches where it uses one core: links,
# build scripts — then the sentence model is unpacked and the bundle split, hashed, packed and
# lightly compressed (`xtask site quick`, whose compile step is then a no-op: a few seconds, where
# wasm-opt and brotli's top quality take minutes; `make site` builds the optimised site). The server is the
# debug profile's build, whose dependencies and sentence model are optimised (Cargo.toml) and
# which `make test` reuses; docs/PERFORMANCE.md says what each profile costs to build and how fast
# it serves. The server's compiler output goes to target/build-server.log.
build: setup
	@mkdir -p target
	@printf '\033[1m==> %s\033[0m\n' "compiling the server beside the bundle (~9 min the first time on 2 cores, under a minute after a change; target/build-server.log)"; \
	  $(XTASK_BUILD) >target/build-server.log 2>&1 & srv=$$!; \
	  cargo wasm-pages; status=$$?; \
	  if ! wait $$srv; then tail -n 40 target/build-server.log; exit 1; fi; \
	  [ $$status = 0 ] && $(XTASK) embedder && $(XTASK) site quick

run: build
	target/debug/consilium serve

viewer: site
	@scripts/setup.sh test
	$(XTASK) viewer-static

dist: site
	cargo build --profile dist -p server
	@echo "target/dist/consilium: $$(du -h target/dist/consilium | cut -f1); it serves target/site (docs/OPERATIONS.md)"

test: xtask
	@mkdir -p target
	@# Each patched crate in vendor/ is its registry crate plus its PATCH.diff (docs/ARCHITECTURE.md).
	$(XTASK) check-vendor
	@$(MAKE) --no-print-directory viewer
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

bench: dist
	$(XTASK) sizes target/site/pkg
	target/dist/consilium-bench
	target/dist/consilium-bench reconcile
	target/dist/consilium-bench topics
	target/dist/consilium-bench safety
	CONSILIUM_BIN=target/dist/consilium scripts/bench-load.sh
	@echo "== this machine: $$(nproc) cores =="
	python3 scripts/recorded-figures.py docs/PERFORMANCE.md

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
