"""imaginebench-data: offline-RL datasets of real and LM-imagined rollouts (ImagineBench/KALM).

The main public API (also ``ib.Transitions``, ``ib.get_encoder(spec)``, ``ib.domain_names()``,
``ib.all_domains()``, ``ib.__version__``)::

    ib.load(id)                    flat, aligned transitions of one dataset (cached)
    ib.Sampler({ds: ratio}, ...)   mixed batches with instruction embeddings (numpy or torch)
    ib.quality_frame(id)           one row per episode: task, length, return, quality flags
    ib.make_env(domain, level)     the evaluation env (also via gymnasium / Minari)
    ib.make_env_and_datasets(name) the eval env (flat observations) and its train / level data
    ib.adapters.to_d4rl(id)        D4RL-style arrays (also to_torchrl, to_d3rlpy)
    ib.FlatObservation(env, enc)   an env whose observations are the flat rows the adapters give
    ib.evaluate(policy, ...)       success rate per task, tasks cycled evenly
    ib.build(id, scale=...)        build one dataset from its recipe in builders/
    ib.get_domain(name)            a domain: tasks, predicates, simulator, expert, checkers
    ib.register_domain(domain)     add a domain (see README "Adding a domain")
"""

from __future__ import annotations

from .core.blas import pin_openblas
from .core.gl import choose_mujoco_gl

pin_openblas()  # before numpy is loaded: its OpenBLAS kernels, the same on every x86 CPU
choose_mujoco_gl()  # before any domain imports mujoco: EGL on a headless GPU, else OSMesa

from .core.env import make_env  # noqa: E402
from .domains import all_domains, domain_names, get_domain, register_domain  # noqa: E402

__version__ = "0.1.0"

domain_names()  # registers every domain and its env id with gymnasium


def __getattr__(name: str):
    # Heavier parts (pandas, torch, minari) load on first use, so that the env's entry
    # point imports quickly in a fresh process.
    lazy = {
        "load": ("loader.transitions", "load"),
        "Transitions": ("loader.transitions", "Transitions"),
        "Sampler": ("loader.sampler", "Sampler"),
        "evaluate": ("loader.evaluate", "evaluate"),
        "quality_frame": ("quality.frame", "quality_frame"),
        "build": ("pipeline.build", "build"),
        "make_env_and_datasets": ("loader.flat", "make_env_and_datasets"),
        "FlatObservation": ("loader.flat", "FlatObservation"),
        "get_encoder": ("loader.encoders", "get_encoder"),
    }
    if name == "adapters":  # ib.adapters.to_d4rl(...) without importing the submodule first
        import importlib

        return importlib.import_module(f"{__name__}.adapters")
    if name in lazy:
        import importlib

        module, attr = lazy[name]
        return getattr(importlib.import_module(f"{__name__}.{module}"), attr)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["load", "Transitions", "Sampler", "quality_frame", "make_env", "make_env_and_datasets",
           "FlatObservation", "get_encoder", "evaluate", "build", "get_domain", "register_domain",
           "domain_names", "all_domains", "__version__"]
