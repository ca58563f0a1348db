# Entry points: `make site` builds database and site from the shipped submissions;
# `make test` runs the whole test suite. Both create .venv and install pinned packages.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat requirements.lock pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: install site test lint format bench browser postgres clean

install: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e . \
	  || $(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

site: $(STAMP)
	@$(BIN)/leaderboard build

# Browser tests drive Debian's Chromium; install it when missing (needs root and apt).
# Without it those tests skip with a loud message.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's chromium for the browser tests"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
	      || echo "WARNING: could not install chromium: browser tests will be skipped"; \
	  else echo "WARNING: chromium is missing and cannot be installed here: browser tests will be skipped"; fi; }

# The PostgreSQL backend tests start a throwaway server from Debian's postgresql package;
# install it when missing. Without it those tests skip with a loud message.
postgres:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's postgresql for the PostgreSQL backend tests"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null) \
	      || echo "WARNING: could not install postgresql: PostgreSQL tests will be skipped"; \
	  else echo "WARNING: postgresql is missing and cannot be installed here: PostgreSQL tests will be skipped"; fi; }

test: $(STAMP) browser postgres
	@$(BIN)/python -m pytest

lint: $(STAMP)
	@$(BIN)/ruff check leaderboard tests benchmarks
	@$(BIN)/ruff format --check leaderboard tests benchmarks

format: $(STAMP)
	@$(BIN)/ruff format leaderboard tests benchmarks
	@$(BIN)/ruff check --fix leaderboard tests benchmarks

bench: $(STAMP)
	@$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) site leaderboard.duckdb .pytest_cache
