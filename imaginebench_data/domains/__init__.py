"""Domain registry: ``get_domain("clevr")``. Each domain is one subpackage exposing ``DOMAIN``
(and an ``env.py`` with its evaluation env, registered in ``imaginebench_data.envs``).

``DOMAINS`` lists the subpackages present, so adding a domain is adding its folder.
"""

from __future__ import annotations

import importlib
import pkgutil

from ..core.domain import Domain

DOMAINS = tuple(sorted(module.name for module in pkgutil.iter_modules(__path__) if module.ispkg))


def get_domain(name: str) -> Domain:
    if name not in DOMAINS:
        raise KeyError(f"unknown domain {name!r}; expected one of {', '.join(DOMAINS)}")
    return importlib.import_module(f"{__name__}.{name}").DOMAIN
