"""The transition checker's floor on real data judged as imagined data is.

Real episodes store the simulator's full state at each step and are re-simulated exactly from it;
imagined ones have only the state's numbers, so the checker re-simulates each of their steps in a
scene rebuilt from those numbers. This runs a level's scripted expert episodes (the recipe's
starts) through that second path, their stored simulator states dropped, and prints how many of
their transitions it puts beyond the tolerance, per task and in all: the figure an imagined set's
transition errors are to be read against. MuJoCo domains need ``MUJOCO_GL=osmesa`` here.

``--replay K`` overrides how many stored steps the rebuilt path replays before the step it
judges (``Simulator.replay_steps``: Meta-World's 5, LIBERO's 0): each step t is judged from a
rebuild of s_{t-K} with the K stored actions before a_t replayed (fewer at an episode's start),
so the scene moves as those actions drive it when a_t is applied, instead of starting at rest;
the prediction is again s_t plus the change a_t makes. ``--replay 0`` is the path without it.

    python experiments/checker_floor.py metaworld train 20
    python experiments/checker_floor.py libero train 18
    python experiments/checker_floor.py metaworld train 20 --replay 0
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
    parser.add_argument("--replay", type=int, default=None, help="judge each step after replaying "
                        "the K actions before it from a rebuild K steps back (default: the domain's)")
    args = parser.parse_args()
    domain = get_domain(args.domain)
    sim = domain.simulator()
    seed = load_recipes()[f"imaginebench/{args.domain}-{args.level}-real-v0"].seed
    if args.replay is not None:
        sim.replay_steps = args.replay
    beyond, steps = Counter(), Counter()
    for index in range(args.episodes):
        episode = expert_episode(domain, args.level, index=index, recipe_seed=seed, sim=sim)
        judged = annotate(domain, dataclasses.replace(episode, infos={}, sim_states=None), sim)
        wrong = ~judged.infos["transition_ok"][1:]
        beyond[episode.task_id] += int(wrong.sum())
        steps[episode.task_id] += len(episode.actions)
    for task in sorted(steps):
        print(f"{task:28s} {beyond[task]:4d} of {steps[task]:5d} = {100 * beyond[task] / steps[task]:5.1f}%")
    total, count = sum(beyond.values()), sum(steps.values())
    path = f"rebuilt {sim.replay_steps} steps back, replayed" if sim.replay_steps else "rebuilt at each step"
    print(f"{args.domain} {args.level}, {args.episodes} expert episodes (seed {seed}) judged without their "
          f"simulator states ({path}): {total} of {count} transitions beyond the tolerance = "
          f"{100 * total / count:.1f}%")


if __name__ == "__main__":
    main()
