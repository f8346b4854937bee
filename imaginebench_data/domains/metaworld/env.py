"""``imaginebench/MetaWorld-v0``: the Meta-World evaluation env (kwargs ``level``, ``task``).

Same contract as every domain's env (see ``imaginebench_data.core.env``): resets cycle the
level's tasks, each reset is a fresh seeded metaworld scene, ``info["success"]`` is the
task's predicate, episodes terminate on success and truncate after 100 steps.
"""

from ...core.env import ImagineEnv


class MetaWorldEnv(ImagineEnv):
    domain_name = "metaworld"
