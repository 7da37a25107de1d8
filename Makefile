# One entry point for students, instructors and CI. Needs only Python 3.10+ and pip.
#   make demo     set up .venv, then doctor + release + run Day 01 + grade samples
#   make demo-class  the same, grading the whole sample class
#   make test     set up .venv, then the whole test suite
#   make lab      JupyterLab on the student notebooks (make instructor: formgrader)
#   make release  regenerate notebooks/ from solutions/
#   make grade    grade a class (SUBMISSIONS=...); make check NB=... grades yourself
#   make bench    measure this machine (bench-quick: under a minute)
#   make gpu-check  on a GPU box without Jupyter: every lesson + full bench -> $OUT
#   make site     the course website in build/site (SOLUTIONS=0: without answers)
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip --disable-pip-version-check
STAMP  := $(VENV)/.installed
JOBS   ?= auto
EXTRAS ?= dev,gpu,grading

.PHONY: venv demo demo-class test test-fast lint lab release release-check doctor bench bench-quick \
	gpu-check bench-mlp bench-grading grade check clean instructor browser hub-proxy ngshare \
	student-bundle site image-check

venv: $(STAMP)

$(STAMP): pyproject.toml constraints.txt autograder/jupyter/images/requirements-nodeps.txt
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 10), "Python 3.10+ is needed, found " + sys.version.split()[0]'
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "Installing the course into $(VENV) (first time: a few minutes)..."
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -c constraints.txt -e ".[$(EXTRAS)]"
	$(PIP) install --quiet --no-deps -r autograder/jupyter/images/requirements-nodeps.txt
	@touch $(STAMP)

demo: venv
	$(PY) -m autograder demo

# the whole sample class (every lesson, every kind of submission)
demo-class: venv
	$(PY) -m autograder demo --all

test: venv browser hub-proxy ngshare
	$(PY) -m pytest -n $(JOBS) --dist loadgroup --durations=15 $(PYTEST_ARGS)

test-fast: venv
	$(PY) -m pytest -m "not slow" $(PYTEST_ARGS)

lint: venv
	$(PY) -m ruff check course autograder tests solutions

doctor: venv
	$(PY) -m course doctor

release: venv
	$(PY) -m autograder release

release-check: venv
	$(PY) -m autograder release --check

# make grade SUBMISSIONS=path/to/export.zip [LESSON=01_devices] [OUT=grading]
# (ASSIGNMENT=, nbgrader's word, is accepted too)
grade: venv
	@test -n "$(SUBMISSIONS)" || (echo "usage: make grade SUBMISSIONS=folder-or-zip [LESSON=NN_topic]"; exit 2)
	$(PY) -m autograder grade "$(SUBMISSIONS)" $(if $(or $(LESSON),$(ASSIGNMENT)),--lesson $(or $(LESSON),$(ASSIGNMENT))) --out $(or $(OUT),grading)

# make check NB=notebooks/01_devices/01_devices.ipynb
check: venv
	@test -n "$(NB)" || (echo "usage: make check NB=path/to/your_notebook.ipynb"; exit 2)
	$(PY) -m autograder check "$(NB)"

bench: venv
	$(PY) -m autograder bench --out $(or $(OUT),bench-results)

bench-quick: venv
	$(PY) -m autograder bench --quick --out $(or $(OUT),bench-results)

# Runs with the machine's own Python (torch + CuPy installed, no venv, no network):
#   OUT=/some/folder make gpu-check
GPU_PYTHON ?= python3
gpu-check:
	PYTHONPATH=$(CURDIR)$(if $(PYTHONPATH),:$(PYTHONPATH)) $(GPU_PYTHON) -m autograder gpu-check --out "$(or $(OUT),gpu-check)" $(if $(ONLY),--only $(ONLY))

# The archive a graded class's students get: dist/gpu-course-student-<version>.zip
student-bundle: venv
	$(PY) -m autograder student-bundle --out dist

# make site [SOLUTIONS=0] [OUT=build/site]: Sphinx + MyST-NB, executed on the CPU
site: venv
	$(PY) -m autograder site --out "$(or $(OUT),build/site)" $(if $(filter 0,$(SOLUTIONS)),--no-solutions) $(if $(HUB),--hub "$(HUB)")

bench-grading: venv
	$(PY) -m autograder.measure.bench_grading

# The Kubernetes user image's Python layer (autograder/jupyter/images/Dockerfile),
# built in a fresh venv and checked, where Docker is not at hand (FLAVOUR=gpu too)
image-check: venv
	$(PY) -m autograder.publish.image_check --flavour $(or $(FLAVOUR),cpu)

bench-mlp: venv
	$(PY) -m autograder bench --only mlp --mode gpu-check --no-plots --out $(or $(OUT),bench-results)

# JupyterLab on 127.0.0.1 with a token (printed in the URL). Students get nbgrader's
# assignment list and Validate button; the instructor gets formgrader and the
# create-assignment toolbar too. Both use the exchange folder $(EXCHANGE).
EXCHANGE ?= $(CURDIR)/.exchange
ROOT_FLAG := $(shell [ "$$(id -u)" = 0 ] && echo --allow-root)
lab: venv
	@mkdir -p "$(EXCHANGE)"
	JUPYTER_CONFIG_DIR=$(CURDIR)/autograder/jupyter/student COURSE_EXCHANGE="$(EXCHANGE)" \
	  $(VENV)/bin/jupyter lab --notebook-dir=notebooks --ServerApp.ip=127.0.0.1 $(ROOT_FLAG)

instructor: venv
	@mkdir -p "$(EXCHANGE)"
	JUPYTER_CONFIG_DIR=$(CURDIR)/autograder/jupyter/instructor COURSE_EXCHANGE="$(EXCHANGE)" \
	  $(VENV)/bin/jupyter lab --notebook-dir=. --ServerApp.ip=127.0.0.1 $(ROOT_FLAG)

# configurable-http-proxy (npm) for the JupyterHub smoke test, in .node/.
hub-proxy:
	@test -x .node/node_modules/.bin/configurable-http-proxy || { \
	  if command -v npm >/dev/null 2>&1; then \
	    echo "Installing configurable-http-proxy into .node/ ..."; \
	    npm install --silent --no-audit --no-fund --prefix .node configurable-http-proxy@5 \
	    || echo "warning: npm could not install configurable-http-proxy; the hub test will be skipped"; \
	  else echo "note: install Node.js and npm to run the JupyterHub smoke test"; fi; }

# ngshare, the hub's exchange service, in an environment of its own (.ngshare/):
# its last release (0.6.0) was written for SQLAlchemy 1.x, and under 2.x a
# release is silently dropped. The hub runs it from here (COURSE_NGSHARE_PYTHON).
NGSHARE_REQS := autograder/jupyter/images/requirements-ngshare.txt
ngshare: .ngshare/.installed

.ngshare/.installed: $(NGSHARE_REQS)
	@test -x .ngshare/bin/python || $(PYTHON) -m venv .ngshare
	@echo "Installing ngshare into .ngshare/ ..."
	@.ngshare/bin/python -m pip install --quiet --disable-pip-version-check -r $(NGSHARE_REQS) \
	  && touch $@ || echo "warning: could not install ngshare; the hub class test will be skipped"

# Debian's Chromium for the browser test (no browser download), and Debian's
# CJK fonts for the Chinese edition's pages. Installed when missing and this is
# root with apt; otherwise the browser test says how.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "Installing Debian's chromium for the browser test..."; \
	    (DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 || \
	     (apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >/dev/null)) \
	    || echo "warning: could not install chromium; the browser test will be skipped"; \
	  else echo "note: install Debian's chromium to run the browser test"; fi; }
	@fc-list :lang=zh 2>/dev/null | grep -q . || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "Installing Debian's fonts-noto-cjk for the Chinese pages..."; \
	    (DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends fonts-noto-cjk >/dev/null 2>&1 || \
	     (apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends fonts-noto-cjk >/dev/null)) \
	    || echo "warning: could not install fonts-noto-cjk; Chinese pages will show empty boxes"; \
	  else echo "note: install Debian's fonts-noto-cjk to render the Chinese pages"; fi; }

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
