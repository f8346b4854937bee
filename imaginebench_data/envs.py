"""Gymnasium registration of the evaluation envs (plain-JSON kwargs, string entry points)."""

from __future__ import annotations

from dataclasses import replace

import gymnasium as gym

ENV_IDS = {"clevr": "imaginebench/Clevr-v0"}
_ENTRY_POINTS = {"clevr": "imaginebench_data.domains.clevr.env:ClevrEnv"}


def register_envs() -> None:
    for domain, env_id in ENV_IDS.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point=_ENTRY_POINTS[domain], kwargs={"level": "train"})


def eval_env_spec(domain: str, level: str) -> gym.envs.registration.EnvSpec:
    """The registered spec with ``level`` set: what a dataset stores as its eval env."""
    register_envs()
    spec = gym.spec(ENV_IDS[domain])
    return replace(spec, kwargs={**spec.kwargs, "level": level})


def make_env(domain: str, level: str = "train", task: str | None = None) -> gym.Env:
    """The evaluation env of ``domain`` at ``level`` (optionally pinned to one task)."""
    register_envs()
    kwargs = {"level": level} if task is None else {"level": level, "task": task}
    return gym.make(ENV_IDS[domain], **kwargs)
