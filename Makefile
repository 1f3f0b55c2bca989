# posenc: a learner needs `make lab` (or, without make, `python tools/course.py lab`).
# lab, check and test are tools/course.py's (one implementation for Windows, macOS and Linux).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
CONSTRAINTS := requirements/constraints.txt
SITE_CONSTRAINTS := requirements/site-constraints.txt
UV_VERSION := 0.13.9
MUTMUT_VERSION := 3.8.1
MUTANT_WORKERS ?= 2

.PHONY: lab check test notebooks bench lock site lock-site mutants clean

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

# The site stack shares .venv with the test stack: its lock was resolved under the test pins.
$(VENV)/.site-installed: $(VENV)/bin/python pyproject.toml $(CONSTRAINTS) $(SITE_CONSTRAINTS)
	@$(PY) -c 'import sys; sys.exit("the website needs Python >= 3.11 (Sphinx 9), found " + sys.version.split()[0]) if sys.version_info < (3, 11) else None'
	$(PY) -m pip install -q -c $(CONSTRAINTS) -c $(SITE_CONSTRAINTS) -e ".[site]"
	touch $@

## lab: install the course and open chapter 00 in JupyterLab (tools/course.py lab)
lab: $(VENV)/.lab-installed
	$(PY) tools/course.py lab

## check: the fast tier for the edit-test loop (under 2 minutes on 2 cores): lint, unit, property, claims and doctests (no notebooks, browser, site or environment builds, no tests marked slow)
check: $(VENV)/.test-installed
	$(PY) tools/course.py check

## test: lint, unit/property/doctests, every notebook re-executed by nbval (strict), the Colab wheel and Binder environment
test: $(VENV)/.test-installed
	$(PY) tools/course.py test

## notebooks: rewrite badges from pyproject, then re-run every notebook in a fresh kernel
notebooks: $(VENV)/.test-installed
	$(PY) tools/nbtools.py sync-links
	$(PY) tools/nbtools.py run

## bench: time what a learner waits for; writes benchmarks/results.json and RESULTS.md
bench: $(VENV)/.test-installed
	$(PY) benchmarks/run.py

## site: build the course website into build/site/ from the committed notebooks (no execution, offline)
site: $(VENV)/.site-installed
	$(PY) tools/sitetools.py build

## lock: re-pin the test stack with uv, one universal resolution for every supported Python (UPGRADE=1: newest versions)
lock: $(VENV)/bin/python
	$(PY) -m pip install -q uv==$(UV_VERSION)
	$(PY) tools/lock.py $(if $(UPGRADE),--upgrade) $(VENV)/bin/uv

## lock-site: re-pin the website stack (requirements/site-constraints.txt) with uv, under the test pins
lock-site: $(VENV)/bin/python
	$(PY) -m pip install -q uv==$(UV_VERSION)
	$(PY) tools/lock.py --site $(if $(UPGRADE),--upgrade) $(VENV)/bin/uv

## mutants: mutation testing of the math modules, the model, the corpus and the experiment engine with mutmut (see docs/mutants.md)
mutants: $(VENV)/.test-installed
	$(PY) -m pip install -q mutmut==$(MUTMUT_VERSION)
	rm -rf mutants
	# one BLAS thread per mutant worker: the workers already fill the cores, and mutmut limits CPU seconds
	POSENC_HYPOTHESIS=mutants OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \
		$(VENV)/bin/mutmut run --max-children $(MUTANT_WORKERS)
	$(PY) tools/mutants.py --required
	$(PY) tools/mutants.py mutants

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis build *.egg-info mutants
