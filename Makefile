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

setup: $(STAMP)

# make demo DOMAINS="babyai metaworld" also builds every dataset of those domains.
DOMAINS ?=
demo: $(STAMP)
	$(VENV)/bin/imaginebench build --default --scale demo --skip-existing $(foreach d,$(DOMAINS),--domain $(d))

test: $(STAMP)
	$(PY) -m pytest -q

lint: $(STAMP)
	$(VENV)/bin/ruff check imaginebench_data builders tests benchmarks

bench: $(STAMP)
	$(PY) benchmarks/loader_speed.py
	$(PY) benchmarks/imagine_speed.py

clean:
	rm -rf $(VENV)
