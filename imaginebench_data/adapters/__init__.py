"""Our datasets in the shapes other libraries expect: a D4RL-style dict, and TorchRL's
``TensorDictReplayBuffer`` (``to_torchrl``, needs the ``torchrl`` package)."""

from .d4rl import to_d4rl

__all__ = ["to_d4rl"]
