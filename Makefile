# Two commands for a fresh clone: `make demo` and `make test` (each sets up .venv first).
PY ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast research research-results bench lint format check lock data clean golden \
	chromium notebooks docs \
	dist dist-compiled wheel-check compiled pure compiled-check

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q pip==26.3
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[test,notebook,env,dask,tune]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m mjlog demo

# The browser tests drive Debian's chromium: installed when missing and allowed.
chromium:
	@sh tests/ensure_chromium.sh

test: $(STAMP) chromium
	$(BIN)/python -m pytest -q -n auto

# The optional compiled build (issue 48): build_compiled.py compiles the hot modules with
# mypyc into .so files beside their source (needs a C compiler); `make pure` removes them.
# Never needed: `make test` and `make demo` run the pure-Python package, the reference.
compiled: $(STAMP)
	$(BIN)/python build_compiled.py

pure:
	$(PY) build_compiled.py --clean

# The other build, checked: the compiled modules built into a temporary copy of the
# tracked files (never into the checkout) and held to the pure source's Parquet bytes there,
# then the core's and the agents' tests run on it (what compiling can change: slots, copies,
# types at a call; about a minute of CPU).
compiled-check: $(STAMP)
	d=$$(mktemp -d) && trap 'rm -rf "$$d"' EXIT && \
	git ls-files -z | xargs -0 cp --parents -t "$$d" && \
	cd "$$d" && $(abspath $(BIN))/python build_compiled.py >/dev/null && \
	MJLOG_REQUIRE_COMPILED=1 PYTHONPATH="$$d" $(abspath $(BIN))/python \
		-m pytest -q -p no:cacheprovider tests/core/test_compiled_identity.py && \
	MJLOG_REQUIRE_COMPILED=1 PYTHONPATH="$$d" $(abspath $(BIN))/python \
		-m pytest -q -n 2 -p no:cacheprovider tests/core tests/agents

# A developer's quick loop: every test but those marked slow (tests/conftest.py).
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -n auto -m "not slow"

# bench/ times (make bench); research/ measures: the studies behind research/results/
# (outside the wheel). `make research` runs their tools' tests; `make research-results`
# reruns the studies themselves (hours of CPU at full size) into research/results/.
research: $(STAMP)
	$(BIN)/python -m pytest -q -n auto research

research-results: $(STAMP)
	$(BIN)/python research/run.py

# Execute every notebook top to bottom on the sample data; the executed copies (with
# their tables and figures) go to build/notebooks/, the committed ones stay clean.
notebooks: $(STAMP)
	mkdir -p build/notebooks
	$(BIN)/jupyter nbconvert --to notebook --execute --ExecutePreprocessor.timeout=600 \
		--output-dir build/notebooks notebooks/*.ipynb

# Golden playthroughs (tests/golden/*.jsonl): rewrite after an intended change of play.
golden: $(STAMP)
	$(BIN)/python tests/golden/regen.py

# The tables of docs/rules/*.md and docs/log-schema.md, rewritten from the code
# (the prose between them is hand-written; tests/house/test_docs.py checks they agree).
docs: $(STAMP)
	$(BIN)/python -m mjlog.docs docs

# The sdist and the wheel, in dist/ (install anywhere: pip install dist/mjlog-*.whl).
dist: $(STAMP)
	rm -rf dist
	$(BIN)/python -m build --outdir dist .

# A wheel with the compiled modules (setup.py, MJLOG_COMPILE=1) for this platform and
# Python; needs a C compiler, else the wheel is pure Python.
dist-compiled: $(STAMP)
	rm -rf dist
	MJLOG_COMPILE=1 $(BIN)/python -m build --wheel --outdir dist .

# The wheel installed into a clean virtualenv outside the checkout and driven end
# to end from an empty folder, with the plugin template (.ci/wheel-check).
wheel-check: $(STAMP)
	bash .ci/wheel-check

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m mypy

# Rewrite every file in the formatter's layout (ruff format; tests/house/test_lint.py checks it).
format: $(STAMP)
	$(BIN)/ruff format .

# Everything a change must pass: lint, types and the whole suite.
check: lint test

# Benchmark peers (the `mahjong` package, RLCard) come from the `bench` extra,
# never from the runtime dependencies.
BENCHSTAMP := $(VENV)/.bench-installed
$(BENCHSTAMP): $(STAMP)
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[test,notebook,env,dask,tune,bench]'
	touch $@

bench: $(BENCHSTAMP)
	$(BIN)/python bench/run.py --out BENCHMARKS.md

# The sample runs in data/, rewritten from their seeds (after any engine change: run, commit).
data: $(STAMP)
	$(BIN)/python -m analysis.studies.sample --out data

lock:
	rm -rf /tmp/mjlog-lock && $(PY) -m venv /tmp/mjlog-lock
	/tmp/mjlog-lock/bin/pip install -q -e '.[test,notebook,env,dask,tune,bench]'
	{ echo "# Pinned set: every fresh clone installs exactly these (regenerate: make lock)."; /tmp/mjlog-lock/bin/pip freeze --exclude-editable; } > constraints.txt

clean:
	rm -rf $(VENV) $(BENCHVENV)
