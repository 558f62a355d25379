# Every target installs what it needs into .venv first, so each works on a fresh clone.
VENV ?= .venv
PYTHON ?= python3
BIN = $(VENV)/bin

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[dev]"
	touch $@

.PHONY: install run sandbox test lint bench
install: $(BIN)/.installed

run: $(BIN)/.installed
	$(BIN)/duelbot run

# The real bot against a local Discord stand-in, played in the browser (docs/sandbox.md).
sandbox: $(BIN)/.installed
	$(BIN)/duelbot sandbox $(if $(PORT),--port $(PORT))

lint: $(BIN)/.installed
	$(BIN)/ruff check bot tests bench migrations
	$(BIN)/mypy

test: lint
	bash .ci/ensure-chromium
	$(BIN)/pytest

bench: $(BIN)/.installed
	$(BIN)/python -m bench.service_bench
