"""Per task of each stored HalfCheetah set: where its imagined episodes end (x), and where
their stored actions take the simulator, replayed open loop from the reset each episode
started from (final x, and whether the task's goal is reached on the way).

Usage: MUJOCO_GL=osmesa python experiments/halfcheetah_direction/replay_direction.py ID...
"""

import sys

import numpy as np

from imaginebench_data.datasets.read import open_dataset, stored_episodes
from imaginebench_data.domains import get_domain
from imaginebench_data.domains.halfcheetah.layout import X
from imaginebench_data.pipeline.rollout import seeded_start


def replay(domain, sim, episode) -> tuple[float, bool]:
    """The final x of ``episode``'s actions replayed from its reset, and whether they reach its goal."""
    start = seeded_start(domain.task(episode.level, episode.task_id), episode.seed, sim)
    state, reached = start.state, False
    for action in episode.actions:
        following = sim.step(action)
        reached = reached or start.task.succeeded(state, action, following)
        state = following
    return float(state[X]), reached


def main(dataset_ids: list[str]) -> None:
    domain = get_domain("halfcheetah")
    sim = domain.simulator()
    for dataset_id in dataset_ids:
        dataset, card = open_dataset(dataset_id)
        rows: dict[str, list[tuple[float, float, bool]]] = {}
        for episode in stored_episodes(dataset, domain):
            final = float(episode.states[-1][X])
            rows.setdefault(episode.task_id, []).append((final, *replay(domain, sim, episode)))
        print(f"{dataset_id}: goal consistency {card.goal_consistency:.1%}")
        for task, values in rows.items():
            imagined, replayed, reached = (np.array(column) for column in zip(*values))
            print(f"  {task:22s} {len(values):3d} episodes | imagined x {imagined.mean():+7.2f} m, "
                  f"ahead of the start {(imagined > 0).mean():4.0%} | replayed x {replayed.mean():+6.2f} m, "
                  f"ahead {(replayed > 0).mean():4.0%} | replay reaches the goal {reached.mean():4.0%}")


if __name__ == "__main__":
    main(sys.argv[1:])
