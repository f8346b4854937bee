"""Gymnasium registration of the evaluation envs (plain-JSON kwargs, string entry points)."""

from __future__ import annotations

from dataclasses import replace

import gymnasium as gym

from .domains import DOMAINS

# domain -> (env id, class in imaginebench_data.domains.<domain>.env); registered for the
# domains whose folder exists.
ENVS = {
    "clevr": ("imaginebench/Clevr-v0", "ClevrEnv"),
    "babyai": ("imaginebench/BabyAI-v0", "BabyAIEnv"),
    "metaworld": ("imaginebench/MetaWorld-v0", "MetaWorldEnv"),
    "libero": ("imaginebench/Libero-v0", "LiberoEnv"),
    "halfcheetah": ("imaginebench/HalfCheetah-v0", "HalfCheetahEnv"),
}
ENV_IDS = {domain: ENVS[domain][0] for domain in DOMAINS}


def register_envs() -> None:
    for domain, env_id in ENV_IDS.items():
        if env_id not in gym.registry:
            entry_point = f"imaginebench_data.domains.{domain}.env:{ENVS[domain][1]}"
            gym.register(id=env_id, entry_point=entry_point, kwargs={"level": "train"})


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
