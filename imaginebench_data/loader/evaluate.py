"""Success rate of a policy in a domain's eval env, tasks cycled evenly: ``evaluate(policy)``."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ..core.env import make_env
from ..domains import get_domain

COLUMNS = ("task_id", "episodes", "successes", "success_rate", "mean_return", "mean_length")


def _env_action(action: Any, space: Any, discrete: bool) -> Any:
    """A policy's output (int, numpy or torch) as the env's action type; continuous actions are
    clipped into the Box (a regression policy such as BC may overshoot its bounds). An output
    of another shape is refused in one line (a batch of one, e.g. ``(1, A)``, is taken as its row)."""
    if hasattr(action, "detach"):
        action = action.detach().cpu().numpy()
    array = np.asarray(action)
    shape = () if discrete else space.shape
    lead = array.ndim - len(shape)
    if lead > 0 and array.shape[lead:] == shape and all(n == 1 for n in array.shape[:lead]):
        array = array.reshape(shape)  # a batch of one
    if array.shape != shape or not (np.issubdtype(array.dtype, np.number) or array.dtype == bool):
        wanted = "one integer" if discrete else f"{shape} numbers"
        raise ValueError(f"the policy returned {action!r:.80} (shape {array.shape}, dtype {array.dtype}); "
                         f"expected {wanted} for the env's {space}")
    if discrete:
        return int(array)
    return np.clip(array.astype(np.float32), space.low, space.high)


def evaluate(policy: Callable[[dict[str, Any]], Any], domain: str = "clevr", level: str = "train",
             episodes: int | None = None, seed: int = 0, progress: bool = True) -> pd.DataFrame:
    """Run ``policy`` for ``episodes`` episodes of the ``domain`` eval env at ``level``.

    Episode k plays task ``k % n_tasks`` of ``get_domain(domain).tasks(level)``, so the tasks
    are cycled evenly; ``episodes`` defaults to ``n_tasks`` (one episode per task) and a warning
    is issued when it is not a multiple of ``n_tasks``. The env is reset with ``seed`` once,
    then unseeded, so a run is reproducible. ``policy`` maps the observation dict
    ``{"state": (D,) float32, "instruction": str}`` to an action (int, numpy or torch).

    Returns one row per task played, in task order: task_id, episodes, successes,
    success_rate, mean_return, mean_length. ``df.attrs`` holds ``success_rate`` (successes
    over all episodes), ``episodes``, ``domain`` and ``level``.
    """
    from tqdm.auto import tqdm

    tasks = get_domain(domain).tasks(level)
    if episodes is not None and (isinstance(episodes, bool) or not isinstance(episodes, (int, np.integer))):
        raise ValueError(f"episodes must be a positive integer or None, got {episodes!r}")
    n_episodes = len(tasks) if episodes is None else int(episodes)
    if n_episodes <= 0:
        raise ValueError(f"episodes must be positive, got {episodes}")
    if n_episodes % len(tasks):
        warnings.warn(f"{n_episodes} episodes is not a multiple of the {len(tasks)} tasks of {domain} "
                      f"level {level!r}: some tasks are played once more than others", stacklevel=2)
    env = make_env(domain, level)
    discrete = get_domain(domain).discrete
    stats = {t.id: {"episodes": 0, "successes": 0, "returns": [], "lengths": []} for t in tasks}
    try:
        for k in tqdm(range(n_episodes), desc=f"evaluate {domain}/{level}", disable=not progress):
            task = tasks[k % len(tasks)]
            obs, info = env.reset(seed=seed if k == 0 else None, options={"task": task.id})
            total, length, success = 0.0, 0, False
            done = False
            while not done:
                action = _env_action(policy(obs), env.action_space, discrete)
                obs, reward, terminated, truncated, info = env.step(action)
                total += float(reward)
                length += 1
                success = bool(info.get("success", False))
                done = terminated or truncated
            row = stats[task.id]
            row["episodes"] += 1
            row["successes"] += int(success)
            row["returns"].append(total)
            row["lengths"].append(length)
    finally:
        env.close()
    rows = [
        {"task_id": task_id, "episodes": s["episodes"], "successes": s["successes"],
         "success_rate": s["successes"] / s["episodes"], "mean_return": float(np.mean(s["returns"])),
         "mean_length": float(np.mean(s["lengths"]))}
        for task_id, s in stats.items() if s["episodes"]
    ]
    df = pd.DataFrame(rows, columns=list(COLUMNS))
    df.attrs.update({"success_rate": float(df["successes"].sum() / n_episodes), "episodes": n_episodes,
                     "domain": domain, "level": level})
    return df
