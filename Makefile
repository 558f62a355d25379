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
#
# The rules engine's texts are not in it (babel.cfg ignores bot/rules): each ruleset package
# carries its own catalog, <package>/locales/duelbot.pot and <package>/locales/<language>/
# LC_MESSAGES/duelbot.po, extracted from that package alone; the texts bot/rules shares
# (base.py, terms.py, params.py...) are in bot/rules/locales, extracted from bot/rules
# without its subpackages. A package gets a catalog for every language the bot has one for.
LOCALES = bot/locales
RULES = bot/rules
RULESET_PACKAGES = $(patsubst %/__init__.py,%,$(wildcard $(RULES)/*/__init__.py))
LANGUAGES = $(patsubst $(LOCALES)/%/LC_MESSAGES/duelbot.po,%,\
	$(wildcard $(LOCALES)/*/LC_MESSAGES/duelbot.po))
EXTRACT = $(BIN)/pybabel extract -F babel.cfg --add-comments=Translators: \
	--add-location=file --sort-output --project=duelbot \
	--copyright-holder="duelbot contributors"
catalogs: $(BIN)/.installed
	$(EXTRACT) -o $(LOCALES)/duelbot.pot bot
	$(BIN)/pybabel update -i $(LOCALES)/duelbot.pot -d $(LOCALES) -D duelbot
	mkdir -p $(RULES)/locales
	$(EXTRACT) --ignore-dirs="* .*" -o $(RULES)/locales/duelbot.pot $(RULES)
	set -e; for package in $(RULESET_PACKAGES); do \
		mkdir -p $$package/locales; \
		$(EXTRACT) -o $$package/locales/duelbot.pot $$package; \
	done
	set -e; for package in $(RULES) $(RULESET_PACKAGES); do \
		for language in $(LANGUAGES); do \
			if [ -f $$package/locales/$$language/LC_MESSAGES/duelbot.po ]; then \
				$(BIN)/pybabel update -i $$package/locales/duelbot.pot \
					-d $$package/locales -D duelbot -l $$language; \
			else \
				$(BIN)/pybabel init -i $$package/locales/duelbot.pot \
					-d $$package/locales -D duelbot -l $$language; \
			fi; \
		done; \
	done
