# Evalstudio — `make run` to use it, `make test` to check it. Both install what is missing.
#
# Tools are installed only when absent or at the wrong version. Nothing downloads a prebuilt
# binary: cargo-leptos and wasm-bindgen-cli build from crates.io, wasm-opt comes from the npm
# package `binaryen`, the browser is Debian's chromium.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

CARGO_LEPTOS_VERSION := 0.3.10
# cargo-leptos runs the wasm-bindgen CLI on PATH, which must equal the crate in Cargo.lock.
WASM_BINDGEN_VERSION := $(shell awk '/^name = "wasm-bindgen"$$/ {getline; gsub(/"/, "", $$3); print $$3; exit}' Cargo.lock)

# Builds live outside the checkout so a fresh clone (as in CI) starts warm; delete the
# directory at any time to build from scratch.
export CARGO_TARGET_DIR ?= $(HOME)/.cache/evalstudio/target
export PATH := $(HOME)/.cargo/bin:$(CURDIR)/end2end/node_modules/.bin:$(PATH)
# leptos reads this at compile time (it names the wasm file the page loads). cargo-leptos sets
# it; setting it for plain cargo too keeps their builds identical, so neither rebuilds the other's.
export LEPTOS_OUTPUT_NAME := evalstudio

VENV ?= $(HOME)/.cache/evalstudio/venv
ADDR ?= 127.0.0.1:3000
DB ?= data/evalstudio.db
# cargo-leptos's debug builds set this flag; tests and clippy use it too so they share artifacts.
DEBUG_RUSTFLAGS := --cfg erase_components

.PHONY: run build test fmt lint unit conformance e2e bench tools rust-tools node-tools browser

## run: build a release and serve it on http://$(ADDR) with the SQLite file $(DB)
run: build
	$(CARGO_TARGET_DIR)/release/evalstudio serve --addr $(ADDR) --db $(DB) --site-root target/site

## build: release build of the server and the wasm front end
build: rust-tools node-tools
	cargo leptos build --release

## test: formatting, lints, unit and integration tests, ADK conformance, then the browser tests
test: tools fmt lint unit conformance e2e

fmt:
	cargo fmt --check

lint:
	RUSTFLAGS="$(DEBUG_RUSTFLAGS)" cargo clippy --all-targets --features ssr -- -D warnings
	cargo clippy --lib --target wasm32-unknown-unknown --features hydrate -- -D warnings

unit:
	RUSTFLAGS="$(DEBUG_RUSTFLAGS)" cargo test --features ssr

## conformance: our export and metrics against google-adk's own file writer and evaluators (in a venv, from PyPI)
conformance: $(VENV)/.installed
	RUSTFLAGS="$(DEBUG_RUSTFLAGS)" cargo build --features ssr --bin evalstudio
	$(VENV)/bin/python conformance/adk_export.py "$(CARGO_TARGET_DIR)/debug/evalstudio" ../shared/fixtures/adk
	$(VENV)/bin/python conformance/adk_metrics.py "$(CARGO_TARGET_DIR)/debug/evalstudio" ../shared/fixtures/adk

$(VENV)/.installed: conformance/requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r conformance/requirements.txt
	touch $@

## e2e: Playwright in Debian's Chromium against a debug build
e2e: tools
	cargo leptos build
	cd end2end && E2E_BIN="$(CARGO_TARGET_DIR)/debug/evalstudio" E2E_SITE_ROOT="$(CURDIR)/target/site" npx playwright test

## bench: import/export (cases/s, peak RSS), chat-turn overhead (p50/p99), eval runner, and scoring vs google-adk
bench:
	cargo bench --features ssr --bench import_export
	cargo bench --features ssr --bench chat_turn
	cargo bench --features ssr --bench runner
	cargo bench --features ssr --bench scoring

tools: rust-tools node-tools browser

rust-tools:
	@rustup target list --installed | grep -qx wasm32-unknown-unknown \
		|| rustup target add wasm32-unknown-unknown
	@cargo leptos --version 2>/dev/null | grep -q " $(CARGO_LEPTOS_VERSION)$$" \
		|| { echo "installing cargo-leptos $(CARGO_LEPTOS_VERSION) (about 25 minutes on 2 cores)"; \
		     cargo install --locked cargo-leptos --version $(CARGO_LEPTOS_VERSION); }
	@wasm-bindgen --version 2>/dev/null | grep -q " $(WASM_BINDGEN_VERSION)$$" \
		|| { echo "installing wasm-bindgen-cli $(WASM_BINDGEN_VERSION)"; \
		     cargo install --force wasm-bindgen-cli --version $(WASM_BINDGEN_VERSION); }

# npm packages: Playwright's test runner (never its browser download) and binaryen's wasm-opt.
node-tools: end2end/node_modules/.package-lock.json

end2end/node_modules/.package-lock.json: end2end/package.json end2end/package-lock.json
	cd end2end && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund

browser:
	@test -x /usr/bin/chromium || { \
		echo "installing Debian's chromium"; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium >/dev/null; }
