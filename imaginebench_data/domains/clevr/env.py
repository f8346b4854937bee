"""``imaginebench/Clevr-v0``: the CLEVR evaluation env (kwargs ``level``, ``task``)."""

from ...core.env import ImagineEnv


class ClevrEnv(ImagineEnv):
    domain_name = "clevr"
