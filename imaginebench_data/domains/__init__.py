"""Domain registry: ``get_domain("clevr")``. Each domain is one subpackage exposing ``DOMAIN``."""

from __future__ import annotations

import importlib

from ..core.domain import Domain

DOMAINS = ("clevr",)


def get_domain(name: str) -> Domain:
    if name not in DOMAINS:
        raise KeyError(f"unknown domain {name!r}; expected one of {', '.join(DOMAINS)}")
    return importlib.import_module(f"{__name__}.{name}").DOMAIN
