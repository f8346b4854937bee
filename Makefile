# Two commands do everything on a fresh clone:  make demo  |  make test
VENV ?= .venv
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
# we use. So it gets its own environment: this package with its dependencies, then d3rlpy without
# its pins and the rest of what d3rlpy needs (the main .venv stays pip-check clean).
D3_VENV ?= .venv-d3rlpy
D3_STAMP := $(D3_VENV)/.installed
$(D3_STAMP): pyproject.toml
	python3 -m venv $(D3_VENV)
	$(D3_VENV)/bin/pip install --quiet torch==2.13.0
	$(D3_VENV)/bin/pip install --quiet -e ".[dev]"
	$(D3_VENV)/bin/pip install --quiet --no-deps d3rlpy==2.8.1
	$(D3_VENV)/bin/pip install --quiet "gym>=0.26" click structlog colorama dataclasses-json scikit-learn
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

# make demo DOMAINS="babyai metaworld" also builds every dataset of those domains.
DOMAINS ?=
demo: $(STAMP) osmesa
	$(VENV)/bin/imaginebench build --default --scale demo --skip-existing $(foreach d,$(DOMAINS),--domain $(d))

test: $(STAMP) $(D3_STAMP) osmesa
	$(PY) -m pytest -q
	$(D3_VENV)/bin/python -m pytest -q -p no:cacheprovider tests/test_d3rlpy_*.py

lint: $(STAMP)
	$(VENV)/bin/ruff check imaginebench_data builders tests benchmarks

bench: $(STAMP)
	$(PY) benchmarks/loader_speed.py
	$(PY) benchmarks/collection_speed.py
	$(PY) benchmarks/imagine_speed.py

clean:
	rm -rf $(VENV) $(D3_VENV)
