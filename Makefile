# pwa-replay front door. `make replay TRACE=sdsc-96` and `make test` are the two commands a user needs.
#
# One cargo profile (`ci`: release-derived, opt-level 1, debug assertions on) serves the tests, the smoke
# sweep and `make replay`, so a fresh machine compiles the dependency set once.

CARGO   ?= cargo
PROFILE ?= ci
BIN     := target/$(PROFILE)/pwa-replay
TRACE   ?= sdsc-96
# SCHED / ALLOC empty: the trace's default grid (`pwa-replay catalog` lists it).
SCHED   ?=
ALLOC   ?=
LOADS   ?= auto
OUT     ?= out/$(TRACE)
PREFIX  ?= $(HOME)/.local
TMPDIR  ?= /tmp
FONT    := /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
# Measured: a cold `make build` (the binary alone) on a shared, saturated 2-core machine (README, Install).
FIRST_BUILD := about 4-5 min on 2 cores, polars is most of it

# The sweep of `make replay`, also run as is by the CLI tests (`replay-run`, with a built BIN).
REPLAY = $(strip $(BIN) sweep --trace $(TRACE) $(if $(SCHED),--sched $(SCHED)) $(if $(ALLOC),--alloc $(ALLOC)) \
	  --loads $(LOADS) --out $(OUT))

.PHONY: setup setup-replay build first-build-notice replay replay-run stats test smoke smoke-run test-slurm bench bench-memory bench-grid paper install install-files clean \
	fuzz fuzz-smoke fuzz-corpus soak build-sharing python pytest wheel wheel-test

# What a fresh Debian machine may lack, as shell checks that name the missing package: the plot
# font (every figure), headless Chromium (the tests of the HTML pages), Python's venv (the Python
# package and its tests).
NEED_FONT     = [ -f "$(FONT)" ] || missing="$$missing fonts-dejavu-core";
NEED_CHROMIUM = command -v chromium >/dev/null || missing="$$missing chromium";
NEED_PYTHON   = command -v python3 >/dev/null || missing="$$missing python3"; \
	  python3 -c 'import ensurepip, venv' 2>/dev/null || missing="$$missing python3-venv";

# $(call install_missing,CHECKS): installs (apt-get, with sudo unless root) the packages CHECKS find
# missing, then checks for cargo; idempotent.
define install_missing
	@missing=""; $(1) \
	  if [ -n "$$missing" ]; then \
	    echo "installing$$missing"; \
	    SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	    $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	  fi
	@command -v $(CARGO) >/dev/null || { echo "cargo not found: install Rust (https://rustup.rs)"; exit 1; }
endef

## setup: install everything a fresh Debian machine lacks for `make test` (the plot font, headless
## Chromium for the tests of index.html and viewer.html, Python's venv for the Python package).
setup:
	$(call install_missing,$(NEED_FONT) $(NEED_CHROMIUM) $(NEED_PYTHON))

## setup-replay: only what `make replay` (and `make paper`) need: the plot font.
setup-replay:
	$(call install_missing,$(NEED_FONT))

## build: the pwa-replay binary alone in the shared profile (no test or bench code). The tests reuse
## every unit it compiles (and the other way round): cli/Cargo.toml pins the features that
## dev-dependencies turn on in crates polars uses, and `make build-sharing` checks it.
build: first-build-notice
	$(CARGO) build --locked --profile $(PROFILE) -p pwa-replay-cli --bin pwa-replay --quiet

## build-sharing: check that `make build` and `make test` compile nothing twice (compiles nothing).
build-sharing:
	tools/build-sharing.py $(PROFILE)

## first-build-notice: one line up front when the binary is missing, so a cold build is expected.
first-build-notice:
	@test -x $(BIN) || echo "first build: compiling pwa-replay and its dependencies ($(FIRST_BUILD)); later builds take seconds"

## replay: sweep TRACE over its default grid (or SCHED × ALLOC) × LOADS → out/TRACE/.
replay: setup-replay build
	$(REPLAY)

replay-run:
	$(REPLAY)

## stats: describe TRACE after filters and shape conversion.
stats: build
	$(BIN) stats --trace $(TRACE)

## test: every unit, property, golden and CLI test (the HTML pages in headless Chromium among them;
## the Python series of experiments with target/py-venv's interpreter as their workers, so the
## Python package is built first), then a smoke sweep on a real log, then the Python package's
## tests (pytest). The tests that read the real logs fail without them; PWA_SKIP_TRACE_TESTS=1
## skips them, reported as ignored (cargo) or skipped (pytest).
test: setup
	$(MAKE) --no-print-directory python
	PWA_PYTHON=$(abspath $(PY)) $(CARGO) test --locked --profile $(PROFILE) --workspace --exclude pwa-replay-py
	$(MAKE) --no-print-directory smoke-run
	$(MAKE) --no-print-directory pytest
	$(MAKE) --no-print-directory wheel-test

## python: the Python package pwa_replay (python/) built by maturin in the shared profile and
## installed, editable, into target/py-venv (created when missing) with polars, pytest, numpy and
## gymnasium. Rebuilt only when a Rust source or the lock file changed.
PYVENV := target/py-venv
PY     := $(PYVENV)/bin/python
PY_INPUTS := $(shell find src python/src -name '*.rs' 2>/dev/null) Cargo.lock Cargo.toml python/Cargo.toml \
	python/pyproject.toml
python: $(PYVENV)/.built

$(PY):
	python3 -m venv $(PYVENV)

$(PYVENV)/.deps: python/pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check "maturin>=1.9,<2" "polars>=1" "pytest>=7" \
	  "numpy>=1.22" "gymnasium>=1"
	touch $@

$(PYVENV)/.built: $(PYVENV)/.deps $(PY_INPUTS)
	VIRTUAL_ENV=$(abspath $(PYVENV)) PATH="$(abspath $(PYVENV))/bin:$$PATH" \
	  $(PYVENV)/bin/maturin develop --quiet --locked --profile $(PROFILE) -m python/Cargo.toml
	touch $@

## pytest: the Python package's tests (python/tests), against the binary for the CLI comparisons.
pytest: python
	PWA_REPLAY_BIN=$(abspath $(BIN)) $(PY) -m pytest -q -rs python/tests

## wheel: the Python package as an abi3 wheel (one file for every CPython >= 3.9 on this platform)
## in target/wheels/, built by maturin in the shared profile (reusing what `make python` compiled);
## PROFILE=release for one to hand out.
WHEELS := target/wheels
wheel: $(PYVENV)/.deps
	rm -f $(WHEELS)/pwa_replay-*.whl
	$(PYVENV)/bin/maturin build --quiet --locked --profile $(PROFILE) -m python/Cargo.toml --out $(WHEELS)

## wheel-test: the wheel pip-installed into a fresh virtual environment (target/wheel-venv, remade
## each time) and a replay run by that environment's Python from outside the repository.
WHEEL_VENV := target/wheel-venv
wheel-test: wheel
	rm -rf $(WHEEL_VENV) && python3 -m venv $(WHEEL_VENV)
	$(WHEEL_VENV)/bin/python -m pip install --quiet --disable-pip-version-check $(WHEELS)/pwa_replay-*.whl
	cd $(TMPDIR) && $(abspath $(WHEEL_VENV))/bin/python $(abspath tools/wheel-check.py) $(abspath $(WHEEL_VENV))

## smoke: two load factors of a real log through the optimised binary, validated.
smoke: build smoke-run

smoke-run:
ifeq ($(PWA_SKIP_TRACE_TESTS),1)
	@echo "smoke sweep: skipped (PWA_SKIP_TRACE_TESTS=1: it reads a real log)"
else
	$(BIN) sweep --trace sdsc-96 --sched fcfs,window:240 --alloc mpl --loads 0.5,1.0 \
	  --validate --quiet --out target/smoke/sdsc-96
	@test -s target/smoke/sdsc-96/summary.csv && test -s target/smoke/sdsc-96/summary.parquet
	@echo "smoke sweep: ok"
endif

## test-slurm: a 3-shard sweep through a private single-node Slurm cluster on this machine (installs
## slurm-wlm and munge when missing; needs root or sudo for that): merged = unsharded, a failed array
## task reported by merge and completed by a --resume rerun. Measured: about 35 s once installed.
test-slurm: build
	BIN=$(BIN) timeout 300 tests/slurm/run.sh

## fuzz: every fuzz target (fuzz/: SWF reader plain and gzip, header, writer round trip, catalog,
## labels, queue-order expressions, experiment files) for FUZZ_SECONDS each under libFuzzer, on
## stable Rust (fuzz/README.md); fails on any crash.
FUZZ_SECONDS ?= 300
fuzz:
	fuzz/run.sh $(FUZZ_SECONDS)

## fuzz-smoke: 10 s per target (CI).
fuzz-smoke:
	fuzz/run.sh 10

## fuzz-corpus: rebuild the kept seed corpus fuzz/corpus/ from the real logs' headers and lines.
fuzz-corpus:
	fuzz/seed-corpus.sh

## soak: random machines × random workloads × every scheduler/allocator pair, validated, for
## SOAK_SECONDS (tests/it/soak.rs; SOAK_SEED picks the first seed). Not part of `make test`.
SOAK_SECONDS ?= 1200
SOAK_SEED    ?= 1
soak:
	PWA_SOAK_SECONDS=$(SOAK_SECONDS) PWA_SOAK_SEED=$(SOAK_SEED) $(CARGO) test --locked --profile $(PROFILE) \
	  -p pwa-replay --test it soak::soak -- --ignored --exact --nocapture

## bench: criterion benchmarks (release build): parse, allocators, replay.
bench:
	$(CARGO) bench --locked -p pwa-replay

## bench-memory: peak RSS of a long replay: MEM_JOBS synthetic Lublin jobs (default 1M) on
## flat:32768 under EASY, without and with --jobs-out (tools/bench-memory.sh; PROFILE=release for
## the timing of record).
MEM_JOBS ?= 1000000
bench-memory: build
	tools/bench-memory.sh $(BIN) $(MEM_JOBS)

## bench-grid: the full sdsc-96 mesh grid (8 schedulers x 5 allocators x 20 loads = 800 cells) on
## the release binary, timed by /usr/bin/time (user + sys CPU is the figure on a shared machine; the goal
## is <= 5 s wall on 2 cores). Builds the release profile (slow the first time: polars).
GRID_OUT ?= /tmp/pwa-grid
bench-grid:
	$(CARGO) build --locked --release -p pwa-replay-cli --bin pwa-replay --quiet
	/usr/bin/time -f '%U s user, %S s sys, %e s wall, %M KB max RSS' target/release/pwa-replay sweep \
	  --trace sdsc-96 --sched fcfs,oo,oocb:8,delay,window:10,window:120,window:240,bq:86400 \
	  --alloc ff,bf,fo,as,mpl --loads 0.1:2.0:0.1 --out $(GRID_OUT) --quiet

## paper: regenerate the figures of the five papers → out/paper/ (PAPER_QUICK=1 for a short run;
## RESUME=1 continues an interrupted run from the replicas it cached).
paper: setup-replay build
	$(BIN) paper $(if $(PAPER_QUICK),--quick) $(if $(RESUME),--resume) --out out/paper

## install: the binary, its manual pages and bash/zsh/fish completions under PREFIX (~/.local).
install: build install-files

install-files:
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
	  $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/pwa-replay
	$(BIN) man --out $(DESTDIR)$(PREFIX)/share/man/man1
	$(BIN) completions bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/pwa-replay
	$(BIN) completions zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_pwa-replay
	$(BIN) completions fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/pwa-replay.fish
	@echo "installed $(DESTDIR)$(PREFIX)/bin/pwa-replay, its manual pages and completions"

clean:
	rm -rf out target/smoke
