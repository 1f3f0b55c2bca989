# posenc: the two commands a learner needs are `make lab` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
CONSTRAINTS := requirements/constraints.txt
# JupyterLab refuses to start as root without this flag (containers, Binder-like machines).
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: lab check test notebooks bench lock clean

$(VENV)/bin/python:
	@$(PYTHON) -c 'import sys; sys.exit("posenc needs Python >= 3.10, found " + sys.version.split()[0]) if sys.version_info < (3, 10) else None'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(VENV)/.lab-installed: $(VENV)/bin/python pyproject.toml $(CONSTRAINTS)
	$(PY) -m pip install -q -c $(CONSTRAINTS) -e ".[lab]"
	touch $@

$(VENV)/.test-installed: $(VENV)/bin/python pyproject.toml $(CONSTRAINTS)
	$(PY) -m pip install -q -c $(CONSTRAINTS) -e ".[test]"
	touch $@ $(VENV)/.lab-installed

## lab: install the course and open it in JupyterLab
lab: $(VENV)/.lab-installed
	$(VENV)/bin/jupyter lab $(ROOT_FLAG) notebooks/00_start_here.ipynb

## check: the fast tier for the edit-test loop: lint, unit, property, claims and doctests (no notebooks, browser or environment builds)
check: $(VENV)/.test-installed
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m pytest -q -m "not browser and not binder" tests posenc_lib

## test: lint, unit/property/doctests, and every notebook re-executed by nbval (strict)
test: $(VENV)/.test-installed
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m pytest --nbval --nbval-current-env --nbval-sanitize-with tests/sanitize.cfg \
		--doctest-modules tests posenc_lib notebooks

## notebooks: rewrite badges from pyproject, then re-run every notebook in a fresh kernel
notebooks: $(VENV)/.test-installed
	$(PY) tools/nbtools.py sync-links
	$(PY) tools/nbtools.py run

## bench: time what a learner waits for; writes benchmarks/results.json and RESULTS.md
bench: $(VENV)/.test-installed
	$(PY) benchmarks/run.py

## lock: re-pin the test stack for every supported Python found by pyenv
lock:
	$(PYTHON) tools/lock.py $(wildcard $(HOME)/.pyenv/versions/3.1[0-3]*/bin/python3)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis build *.egg-info
