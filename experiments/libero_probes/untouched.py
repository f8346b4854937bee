"""How far LIBERO's bodies move where no part of the hand can touch them, in stored datasets.

A body (an item or the basket) is out of the hand's reach in a transition when its centre is
farther sideways from the grip site than ``decode.UNTOUCHED`` (half the hand's 21 cm span plus
its half-width) in the state before and in the state after. The simulator leaves such a body
still; this probe measures, per dataset and body, the transitions where it is out of reach,
the share of them where it moved more than 1 mm, and its median and largest move.

Run on the real demo sets it gives the floor the projection's ``keep_untouched`` rests on; on
the imagined sets of 8bd2883 (before the projection kept such bodies still) it gave the drift
docs/experiments.md reports ("LIBERO: what the hand cannot touch stays put").

Usage: python experiments/libero_probes/untouched.py ID [ID ...]
   e.g. python experiments/libero_probes/untouched.py imaginebench/libero-{train,rephrase,easy,hard}-real-v0
"""

import sys

import minari
import numpy as np

from imaginebench_data.domains.libero.decode import UNTOUCHED
from imaginebench_data.domains.libero.layout import position


def transitions(dataset_id: str) -> tuple[np.ndarray, np.ndarray]:
    """Every (state, next state) pair of the dataset's episodes, as float64."""
    before, after = [], []
    for episode in minari.load_dataset(dataset_id).iterate_episodes():
        states = episode.observations["state"]
        before.append(states[:-1])
        after.append(states[1:])
    return np.concatenate(before).astype(np.float64), np.concatenate(after).astype(np.float64)


def sideways(states: np.ndarray, name: str) -> np.ndarray:
    return np.linalg.norm(position(states, name)[:, :2] - position(states, "eef")[:, :2], axis=1)


for dataset_id in sys.argv[1:]:
    before, after = transitions(dataset_id)
    print(f"{dataset_id}: {len(before)} transitions")
    for name, reach in UNTOUCHED.items():
        out = (sideways(before, name) > reach) & (sideways(after, name) > reach)
        moved = np.linalg.norm(position(after, name) - position(before, name), axis=1)[out]
        if not len(moved):
            print(f"  {name:15s} never out of reach")
            continue
        print(f"  {name:15s} out of reach in {out.sum():6d}: moved more than 1 mm in "
              f"{100 * (moved > 1e-3).mean():5.1f}%, median {1000 * np.median(moved):.3f} mm, "
              f"largest {1000 * moved.max():.3f} mm")
