# The few commands a newcomer needs. Each sets up the virtual environment first if needed.
VENV ?= .venv
PYTHON ?= python3
STAMP := $(VENV)/.installed-stamp

.PHONY: setup demo test lint format

# torch as pinned in pyproject.toml, its CPU build (750 MB installed) from PyTorch's own index,
# installed first: left to PyPI, sentence-transformers would pull the multi-GB CUDA build.
TORCH := torch==2.13.0
TORCH_INDEX ?= https://download.pytorch.org/whl/cpu

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet $(TORCH) --index-url $(TORCH_INDEX)
	$(VENV)/bin/pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

demo: setup  ## the whole daily job end to end on the bundled sample, then serve the site
	$(VENV)/bin/paperboy demo

test: setup  ## the whole suite on SQLite (set PAPERBOY_TEST_DATABASE_URL for PostgreSQL)
	$(VENV)/bin/pytest

lint: setup  ## ruff, mypy --strict, and the layer contract (pyproject.toml, docs/architecture.md)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

format: setup
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .
