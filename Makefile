# Two commands for a newcomer: `make run` and `make test`.
# Each creates .venv when missing and reinstalls only when pyproject.toml changed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev

.PHONY: run test lint typecheck pytest clean

run: $(STAMP_RUN)
	$(BIN)/python -m bot

test: $(STAMP_DEV) lint typecheck pytest

lint: $(STAMP_DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP_DEV)
	$(BIN)/mypy

pytest: $(STAMP_DEV)
	$(BIN)/python -m pytest

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(STAMP_DEV): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $@ $(STAMP_RUN)

clean:
	rm -rf $(VENV)
