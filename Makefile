# One entry point for students, instructors and CI. Needs only Python 3.10+ and pip.
#   make demo     set up .venv, then doctor + release + run Day 01 + grade it
#   make test     set up .venv, then the whole test suite
#   make lab      JupyterLab on the student notebooks
#   make release  regenerate notebooks/ from solutions/
#   make grade    grade a class (SUBMISSIONS=...); make check NB=... grades yourself
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check
STAMP  := $(VENV)/.installed
JOBS   ?= auto
EXTRAS ?= dev,gpu

.PHONY: venv demo test test-fast lint lab release release-check doctor bench-mlp bench-grading grade check clean

venv: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 10), "Python 3.10+ is needed, found " + sys.version.split()[0]'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "Installing the course into $(VENV) (first time: a few minutes)..."
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -c constraints.txt -e ".[$(EXTRAS)]"
	@touch $(STAMP)

demo: venv
	$(PY) -m course demo

test: venv
	$(PY) -m pytest -n $(JOBS) $(PYTEST_ARGS)

test-fast: venv
	$(PY) -m pytest -m "not slow" $(PYTEST_ARGS)

lint: venv
	$(PY) -m ruff check course autograder tests solutions

doctor: venv
	$(PY) -m course doctor

release: venv
	$(PY) -m course release

release-check: venv
	$(PY) -m course release --check

# make grade SUBMISSIONS=path/to/export.zip [ASSIGNMENT=01_devices] [OUT=grading]
grade: venv
	@test -n "$(SUBMISSIONS)" || (echo "usage: make grade SUBMISSIONS=folder-or-zip [ASSIGNMENT=NN_topic]"; exit 2)
	$(PY) -m course grade "$(SUBMISSIONS)" $(if $(ASSIGNMENT),--assignment $(ASSIGNMENT)) --out $(or $(OUT),grading)

# make check NB=notebooks/01_devices/01_devices.ipynb
check: venv
	@test -n "$(NB)" || (echo "usage: make check NB=path/to/your_notebook.ipynb"; exit 2)
	$(PY) -m course check "$(NB)"

bench-grading: venv
	$(PY) -m autograder.bench_grading

bench-mlp: venv
	$(PY) -m autograder.bench_mlp

lab: venv
	$(VENV)/bin/jupyter lab --notebook-dir=notebooks --ServerApp.ip=127.0.0.1

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
