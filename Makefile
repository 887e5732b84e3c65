# Two commands for a newcomer: `make run` and `make test` (`make help` lists every target).
# Each makes .venv with $(PYTHON) when it is missing, broken or made by another interpreter,
# and installs the locked versions (requirements*.txt, with hashes) when a lock changed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
LOCK := requirements.txt
DEV_LOCK := requirements-dev.txt
STAMP_RUN := $(VENV)/.installed-run
STAMP_DEV := $(VENV)/.installed-dev
# Arguments for `python -m bot`, e.g. make run ARGS="--sandbox-port 9000".
ARGS ?=
# The tool that compiles the locks, kept in a venv of its own.
UV_VERSION := 0.13.9
LOCK_TOOLS := $(VENV)/lock-tools
UV := $(LOCK_TOOLS)/bin/uv
UV_COMPILE := $(UV) pip compile pyproject.toml --quiet --universal --python-version 3.11 \
	--generate-hashes --custom-compile-command "make lock"

# Which interpreter a Python is (its exact version and installation), and whether it will do.
WHICH_PYTHON := import os, sys; print("Python", sys.version.split()[0], "at", os.path.realpath(sys.base_prefix))
SUPPORTED := import sys; sys.exit(sys.version_info < (3, 11) and \
	f"make: PYTHON=$(PYTHON) is Python {sys.version.split()[0]}, but the bot needs 3.11 or newer: name another, e.g. make run PYTHON=python3.11")

.PHONY: run test lint typecheck pytest help lock lock-upgrade clean venv dev installed-run installed-dev

run: venv  ## Run the bot (no DISCORD_TOKEN: against the local sandbox); ARGS="..." for options
	@$(MAKE) --no-print-directory installed-run
	$(BIN)/python -m bot $(ARGS)

test: lint typecheck pytest  ## Run ruff, ruff format --check, mypy and pytest (what CI runs)

lint: dev  ## Run ruff and ruff format --check
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: dev  ## Run mypy
	$(BIN)/mypy

pytest: dev  ## Run the tests
	$(BIN)/python -m pytest

help:  ## List the targets
	@echo "make [target] [PYTHON=python3.X]   (the first one, run, is the default)"
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  make %-13s %s\n", $$1, $$2}' \
		$(MAKEFILE_LIST)

lock: venv  ## Refresh the locks after a change to pyproject.toml (keeps the other pins)
	@test -x $(UV) || { $(PYTHON) -m venv $(LOCK_TOOLS) && \
		$(LOCK_TOOLS)/bin/python -m pip install --quiet "uv==$(UV_VERSION)"; }
	$(UV_COMPILE) $(UPGRADE) -o $(LOCK)
	$(UV_COMPILE) $(UPGRADE) --extra dev -c $(LOCK) -o $(DEV_LOCK)

lock-upgrade:  ## Lock the newest versions that pyproject.toml allows
	@$(MAKE) --no-print-directory lock UPGRADE=--upgrade

clean:  ## Remove .venv
	rm -rf $(VENV)

# Make .venv again when it does not run, lacks pip, or is not the interpreter asked for.
venv:
	@want="$$($(PYTHON) -c '$(WHICH_PYTHON)' 2>/dev/null)" || { \
		echo "make: PYTHON=$(PYTHON) does not run here: name an installed Python 3.11 or newer, e.g. make run PYTHON=python3.12" >&2; \
		exit 2; }; \
	$(PYTHON) -c '$(SUPPORTED)' || exit 2; \
	have="$$($(BIN)/python -c '$(WHICH_PYTHON)' 2>/dev/null)"; \
	if [ "$$have" != "$$want" ] || ! $(BIN)/python -c 'import pip' 2>/dev/null; then \
		if [ -e $(VENV) ]; then \
			echo "make: $(VENV) is $${have:-broken}, but PYTHON=$(PYTHON) is $$want: making $(VENV) again"; \
		fi; \
		rm -rf $(VENV) && $(PYTHON) -m venv $(VENV); \
	fi

dev: venv
	@$(MAKE) --no-print-directory installed-dev

# Install a lock when it changed since it was last installed in this .venv.
installed-run: $(STAMP_RUN)
	@:

installed-dev: $(STAMP_DEV)
	@:

$(STAMP_RUN): $(LOCK)
	$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)
	touch $@

$(STAMP_DEV): $(DEV_LOCK)
	$(BIN)/python -m pip install --quiet --require-hashes -r $(DEV_LOCK)
	touch $@

# Message catalogs (gettext): bot/locale/bot.pot is extracted from the code by
# bot.locale.extract (see babel.cfg); the catalogs of each language are then updated from it.
PYBABEL := $(BIN)/python -m babel.messages.frontend
LOCALE_DIR := bot/locale
.PHONY: messages

messages: dev  ## Extract the messages into bot/locale/bot.pot and update every catalog from it
	$(PYBABEL) extract -F babel.cfg --no-default-keywords -k t -k tn:1,2 -k locale_str \
		-k command_name:1c,2 --project=shithead-bot \
		--version="$$($(BIN)/python -c 'import bot.version; print(bot.version.__version__)')" \
		--header-comment="# Messages of shithead-bot, extracted by make messages (see babel.cfg)." \
		-w 100 -o $(LOCALE_DIR)/bot.pot .
	$(PYBABEL) update -D bot -i $(LOCALE_DIR)/bot.pot -d $(LOCALE_DIR) -w 100
