# Two commands do everything on a fresh clone:  make demo  |  make test
VENV ?= .venv
# Nothing kept in pip's cache: the wheels are installed once, and CI's disk can be small.
export PIP_NO_CACHE_DIR := 1
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup osmesa demo test lint bench clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	# torch first, pinned: the local CPU build (any other torch request pulls a CUDA build).
	$(VENV)/bin/pip install --quiet torch==2.13.0
	$(VENV)/bin/pip install --quiet -e ".[dev]"
	touch $(STAMP)

# d3rlpy 2.8.1 pins gymnasium 1.0.0, which metaworld refuses; it runs unchanged on the gymnasium
# we use. So it gets its own small environment layered on the main one: a .pth file puts .venv's
# packages (torch included) behind its own, which hold only this package (editable, no
# dependencies), d3rlpy without its pins and the rest of what d3rlpy needs. The main .venv stays
# pip-check clean, and torch is on disk once (a second copy of .venv would cost 3.9 GB).
D3_VENV ?= .venv-d3rlpy
D3_STAMP := $(D3_VENV)/.installed
PYVER = $(shell $(PY) -c 'import sys; print("%d.%d" % sys.version_info[:2])')
$(D3_STAMP): $(STAMP)
	rm -rf $(D3_VENV)
	python3 -m venv $(D3_VENV)
	echo "import site; site.addsitedir('$(abspath $(VENV))/lib/python$(PYVER)/site-packages')" \
		> $(D3_VENV)/lib/python$(PYVER)/site-packages/zz_imaginebench_main_venv.pth
	$(D3_VENV)/bin/pip install --quiet --no-deps -e .
	$(D3_VENV)/bin/pip install --quiet --no-deps d3rlpy==2.8.1
	$(D3_VENV)/bin/pip install --quiet "gym>=0.26" click structlog colorama dataclasses-json scikit-learn
	$(D3_VENV)/bin/python -c "import torch, d3rlpy, imaginebench_data"
	touch $(D3_STAMP)

# MuJoCo renders offscreen (env.render(), imaginebench render, the cards' episode pictures) with
# OSMesa where there is no display or GPU. Best effort: installed with apt-get when missing and we
# are root; otherwise a warning (rendering tests then skip), never a failed make.
osmesa:
	@if (ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null) | grep -qi libOSMesa; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "installing libosmesa6 (software OpenGL for MuJoCo's offscreen renderer)"; \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libosmesa6) >/dev/null 2>&1 \
			|| echo "warning: apt-get could not install libosmesa6: MuJoCo rendering needs it (or a GPU with MUJOCO_GL=egl)"; \
	else echo "warning: libOSMesa not found: MuJoCo rendering needs it (as root: apt-get install libosmesa6)"; fi

setup: $(STAMP) osmesa

# make demo DOMAINS="babyai metaworld" also builds every dataset of those domains, each in its own
# process: a process's numerics are fixed at torch's first operation, and a domain's recipes may
# ask for other ones than CLEVR's (imaginebench_data/imagine/numerics.py).
DOMAINS ?=
demo: $(STAMP) osmesa
	$(VENV)/bin/imaginebench build --default --scale demo --skip-existing
	$(foreach d,$(DOMAINS),$(VENV)/bin/imaginebench build --domain $(d) --scale demo --skip-existing &&) true

# Two pytest workers (pytest-xdist). --dist loadfile keeps each test file on one worker, so its
# module fixtures are built once; tests/conftest.py makes the workers' OpenMP threads wait
# passively. The d3rlpy tests have no module fixtures.
test: $(STAMP) $(D3_STAMP) osmesa
	$(PY) -m pytest -q -n 2 --dist loadfile
	$(D3_VENV)/bin/python -m pytest -q -n 2 -p no:cacheprovider tests/test_d3rlpy_*.py

lint: $(STAMP)
	$(VENV)/bin/ruff check imaginebench_data builders tests benchmarks

bench: $(STAMP)
	$(PY) benchmarks/loader_speed.py
	$(PY) benchmarks/collection_speed.py
	$(PY) benchmarks/imagine_speed.py

clean:
	rm -rf $(VENV) $(D3_VENV)
