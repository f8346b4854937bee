"""The transition checker's floor on real data judged as imagined data is.

Real episodes store the simulator's full state at each step and are re-simulated exactly from it;
imagined ones have only the state's numbers, so the checker re-simulates each of their steps in a
scene rebuilt from those numbers. This runs a level's scripted expert episodes (the recipe's
starts) through that second path, their stored simulator states dropped, and prints how many of
their transitions it puts beyond the tolerance, per task and in all: the figure an imagined set's
transition errors are to be read against. MuJoCo domains need ``MUJOCO_GL=osmesa`` here.

    python experiments/checker_floor.py metaworld train 20
    python experiments/checker_floor.py libero train 18
"""

from __future__ import annotations

import argparse
import dataclasses
from collections import Counter

from imaginebench_data.domains import get_domain
from imaginebench_data.pipeline.recipe import load_recipes
from imaginebench_data.pipeline.rollout import expert_episode
from imaginebench_data.quality.checkers import annotate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("domain")
    parser.add_argument("level")
    parser.add_argument("episodes", type=int)
    args = parser.parse_args()
    domain = get_domain(args.domain)
    sim = domain.simulator()
    seed = load_recipes()[f"imaginebench/{args.domain}-{args.level}-real-v0"].seed
    beyond, steps = Counter(), Counter()
    for index in range(args.episodes):
        episode = expert_episode(domain, args.level, index=index, recipe_seed=seed, sim=sim)
        judged = annotate(domain, dataclasses.replace(episode, infos={}, sim_states=None), sim)
        beyond[episode.task_id] += int((~judged.infos["transition_ok"][1:]).sum())
        steps[episode.task_id] += len(episode.actions)
    for task in sorted(steps):
        print(f"{task:28s} {beyond[task]:4d} of {steps[task]:5d} = {100 * beyond[task] / steps[task]:5.1f}%")
    total, count = sum(beyond.values()), sum(steps.values())
    print(f"{args.domain} {args.level}, {args.episodes} expert episodes (seed {seed}) judged without their "
          f"simulator states: {total} of {count} transitions beyond the tolerance = {100 * total / count:.1f}%")


if __name__ == "__main__":
    main()
