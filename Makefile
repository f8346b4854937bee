# Two commands do everything on a fresh clone:  make demo  |  make test
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint bench clean

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

setup: $(STAMP)

# make demo DOMAINS="babyai metaworld" also builds every dataset of those domains.
DOMAINS ?=
demo: $(STAMP)
	$(VENV)/bin/imaginebench build --default --scale demo --skip-existing $(foreach d,$(DOMAINS),--domain $(d))

test: $(STAMP) $(D3_STAMP)
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
