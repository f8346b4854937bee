"""The domain registry: the only place the rest of the package learns which domains exist.

Domains come from three places, in this order:

- every subpackage of this folder exposing ``DOMAIN`` (the five built-in domains);
- the ``imaginebench.domains`` entry points of installed packages (``name = "module:attr"``,
  the attribute a ``Domain``), so a domain can live in a package of its own;
- ``register_domain(domain)`` at run time (a test's or a notebook's domain).

Registering a domain registers its evaluation env id with gymnasium.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import pkgutil

import gymnasium as gym

from ..core.domain import Domain

ENTRY_POINT_GROUP = "imaginebench.domains"
ENV_ENTRY_POINT = "imaginebench_data.core.env:ImagineEnv"

_registered: dict[str, Domain] = {}
_discovered = False


def register_domain(domain: Domain) -> Domain:
    """Add ``domain`` to the registry and register its env id; returns it."""
    known = _registered.get(domain.name)
    if known is not None and known is not domain:
        raise ValueError(f"a different domain named {domain.name!r} is already registered")
    _registered[domain.name] = domain
    if domain.env_id not in gym.registry:
        gym.register(id=domain.env_id, entry_point=ENV_ENTRY_POINT,
                     kwargs={"domain": domain.name, "level": "train"})
    return domain


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    _discovered = True
    for module in pkgutil.iter_modules(__path__):
        if module.ispkg:
            register_domain(importlib.import_module(f"{__name__}.{module.name}").DOMAIN)
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        register_domain(entry.load())


def domain_names() -> tuple[str, ...]:
    """The names of every registered domain, sorted."""
    _discover()
    return tuple(sorted(_registered))


def all_domains() -> list[Domain]:
    """Every registered domain, sorted by name."""
    return [_registered[name] for name in domain_names()]


def get_domain(name: str) -> Domain:
    """The registered domain called ``name``; a KeyError naming the known ones otherwise."""
    _discover()
    if name not in _registered:
        import difflib

        close = difflib.get_close_matches(name, sorted(_registered), n=1) if isinstance(name, str) else []
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise KeyError(f"unknown domain {name!r}; expected one of {', '.join(sorted(_registered))}{hint}")
    return _registered[name]


__all__ = ["register_domain", "domain_names", "all_domains", "get_domain", "Domain"]
