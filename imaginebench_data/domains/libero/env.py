"""``imaginebench/Libero-v0``: the LIBERO evaluation env (kwargs ``level``, ``task``).

Same contract as every domain's env (see ``imaginebench_data.core.env``): resets cycle the
level's tasks, each reset places the items afresh in the one floor scene the env builds (about
8 s, once), ``info["success"]`` is the task's predicate, episodes terminate on success and
truncate after 500 steps.
"""

from ...core.env import ImagineEnv


class LiberoEnv(ImagineEnv):
    domain_name = "libero"
