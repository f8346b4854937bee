"""The instruction text space shared by every domain."""

from __future__ import annotations

import string

import gymnasium as gym

INSTRUCTION_CHARSET = string.ascii_letters + string.digits + " .,;:!?'\"-()/&"
INSTRUCTION_MAX_LENGTH = 400


def instruction_space() -> gym.spaces.Text:
    """Text space whose charset covers case, digits, spaces and punctuation of every phrasing."""
    return gym.spaces.Text(
        max_length=INSTRUCTION_MAX_LENGTH, min_length=1, charset=INSTRUCTION_CHARSET
    )


def observation_space(state_space: gym.spaces.Box) -> gym.spaces.Dict:
    return gym.spaces.Dict({"state": state_space, "instruction": instruction_space()})
