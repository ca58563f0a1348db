# Entry points: `make site` builds database and site from the shipped submissions;
# `make test` runs the whole test suite. Both create .venv and install pinned packages.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat requirements.lock pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: install site test lint format bench browser postgres wasm clean reimport icu bytecode

install: $(STAMP)

$(STAMP): requirements.lock pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -c "import icu" 2>/dev/null || pkg-config --exists icu-i18n 2>/dev/null || $(MAKE) --no-print-directory icu
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e . \
	  || $(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

site: $(STAMP) bytecode wasm
	@$(BIN)/leaderboard build

# The package's compiled bytecode, as a regular install leaves it (an editable one does not): with
# PYTHONDONTWRITEBYTECODE set, every command would compile its modules again (a build imports 76) (0.1 s of each
# rebuild and check-pr). Then the pages' templates and the database's DDL, compiled once for the
# code (leaderboard/precompiled.py): a first or cold build reads them. Only what changed is
# compiled; __pycache__/ is not committed. Failing to write them only makes a first build slower.
bytecode: $(STAMP)
	@$(BIN)/python -m compileall -q leaderboard >/dev/null
	@$(BIN)/python -m leaderboard.precompiled || true

# DuckDB-WASM for the site's SQL page, pinned by web/package-lock.json: Node.js and npm from
# Debian when missing, then `npm ci` and a one-file bundle (web/build/duckdb/), rebuilt only
# when the lock file changes. Without them the SQL page says so; every other page works.
WASM_STAMP := web/build/.installed-$(shell cat web/package-lock.json web/package.json web/*.mjs 2>/dev/null | cksum | cut -d' ' -f1)
wasm: $(WASM_STAMP)

$(WASM_STAMP): web/package.json web/package-lock.json web/duckdb-entry.mjs web/copy-assets.mjs
	@command -v npm >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's nodejs and npm for the SQL page"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; \
	  else echo "npm is missing: install Node.js and npm" >&2; exit 1; fi; }
	@cd web && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build
	@rm -f web/build/.installed-*
	@touch $@

# PyICU (the names check's Unicode TR39 skeletons) is built from source against the system's ICU:
# Debian's libicu-dev, pkg-config and a C++ compiler, installed when missing (root and apt).
icu:
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing Debian's libicu-dev, pkg-config and g++ to build PyICU"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libicu-dev pkg-config g++ >/dev/null; \
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null && command -v apt-get >/dev/null 2>&1; then \
	  sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libicu-dev pkg-config g++ >/dev/null; \
	else echo "ICU's headers are missing: install libicu-dev (Debian/Ubuntu) or icu4c (Homebrew) and pkg-config" >&2; exit 1; fi

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

test: $(STAMP) bytecode browser postgres wasm
	@$(BIN)/python -m pytest

lint: $(STAMP)
	@$(BIN)/ruff check leaderboard tests benchmarks
	@$(BIN)/ruff format --check leaderboard tests benchmarks

format: $(STAMP)
	@$(BIN)/ruff format leaderboard tests benchmarks
	@$(BIN)/ruff check --fix leaderboard tests benchmarks

# The trusted re-import that check-pr compares a pull request with (`check-pr --reimported`;
# the pull-request workflows run it from the base branch's checkout, never the pull request's):
# every archive of catalog/archives.yaml fetched into ARCHIVES and checked by SHA-256 (FETCH:
# --from FOLDER or --repository URL), then each round imported afresh by this checkout's
# importers into FRESH, a new project-shaped folder whose catalog is this one without the
# importers' manifests. Each family's importer has its line here (import-mlperf reads MLPerf
# Training and HPC rounds alike).
ARCHIVES ?= .archives
FRESH ?= .reimported
FETCH ?= --from ../shared/data
reimport: $(STAMP)
	@if [ -e "$(FRESH)" ]; then echo "$(FRESH) exists: the re-import writes into a new folder" >&2; exit 1; fi
	@$(BIN)/leaderboard fetch-archives --to "$(ARCHIVES)" $(FETCH)
	@mkdir -p "$(FRESH)/submissions"
	@cp -R catalog "$(FRESH)/catalog"
	@rm -rf "$(FRESH)/catalog/verified" "$(FRESH)/catalog/imported" "$(FRESH)/catalog/skipped"
	@mlperf=$$($(BIN)/leaderboard importable-archives import-mlperf --in "$(ARCHIVES)" --catalog "$(FRESH)/catalog") \
	  && $(BIN)/leaderboard import-mlperf $$mlperf --out "$(FRESH)/submissions" --catalog "$(FRESH)/catalog" -q
	@epoch=$$($(BIN)/leaderboard importable-archives import-epoch --in "$(ARCHIVES)" --catalog "$(FRESH)/catalog") \
	  && $(BIN)/leaderboard import-epoch $$epoch --out "$(FRESH)/submissions/published" --catalog "$(FRESH)/catalog"
	@dawnbench=$$($(BIN)/leaderboard importable-archives import-dawnbench --in "$(ARCHIVES)" --catalog "$(FRESH)/catalog") \
	  && $(BIN)/leaderboard import-dawnbench $$dawnbench --out "$(FRESH)/submissions" --catalog "$(FRESH)/catalog"

bench: $(STAMP) bytecode
	@$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) site .site.spare leaderboard.duckdb .pytest_cache web/node_modules web/build
