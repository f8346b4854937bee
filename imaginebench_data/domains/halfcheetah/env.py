"""``imaginebench/HalfCheetah-v0``: the HalfCheetah evaluation env (kwargs ``level``, ``task``).

Same contract as every domain's env (see ``imaginebench_data.core.env``): resets cycle the
level's tasks, each reset is a seeded gymnasium HalfCheetah-v5 reset (dx and the counters 0),
``info["success"]`` is the task's predicate, episodes terminate on success and truncate after
200 steps.
"""

from ...core.env import ImagineEnv


class HalfCheetahEnv(ImagineEnv):
    domain_name = "halfcheetah"
