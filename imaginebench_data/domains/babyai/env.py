"""``imaginebench/BabyAI-v0``: the BabyAI evaluation env (kwargs ``level``, ``task``)."""

from ...core.env import ImagineEnv


class BabyAIEnv(ImagineEnv):
    domain_name = "babyai"
