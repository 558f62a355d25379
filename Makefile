# Every target installs what it needs into .venv first, so each works on a fresh clone.
VENV ?= .venv
PYTHON ?= python3
BIN = $(VENV)/bin

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e ".[dev]"
	touch $@

.PHONY: install run sandbox test lint bench catalogs
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

# The message catalogs (docs/translating.md): the template bot/locales/duelbot.pot from
# what bot/ marks (babel.cfg), then every language's .po brought up to date with it (a new
# English text arrives empty, a changed one as "fuzzy" until a translator checks it).
LOCALES = bot/locales
catalogs: $(BIN)/.installed
	$(BIN)/pybabel extract -F babel.cfg -o $(LOCALES)/duelbot.pot --add-comments=Translators: \
		--add-location=file --sort-output --project=duelbot \
		--copyright-holder="duelbot contributors" bot
	$(BIN)/pybabel update -i $(LOCALES)/duelbot.pot -d $(LOCALES) -D duelbot
