"""Probe a LIBERO checkpoint: where its imagined transitions leave the simulator's.

LIBERO's imagined transitions are mostly beyond the checkers' tolerance (82-97% in the demo
cards), although the same model's dynamics prompt ((s, a) -> s', the grounding's second
task) puts 95% of the held-out real transitions within it. This probe imagines a level's
prompts of the committed card in up to three ways, each prompted afresh every
``Domain.prompt_steps`` steps and projected onto the scene as the generator does:

- ``context``: the generator as it is (its figures are the card's);
- ``dynamics``: the model's own actions from the rollout context, every next state from the
  dynamics prompt on (s_t, a_t) instead;
- ``simulator``: every next state the simulator's step from s_t (rebuilt from its 44 numbers,
  as the transition checker rebuilds it): the model acting in closed loop, approximately.

Per way: goal consistency, the share of transitions beyond the tolerance and the rollouts with
none beyond (both by the cards' checker, ``quality.checkers``), and the share of states with an
item's centre in the floor (``checks.sunk_into_floor``), before and after decoding.

Run at the commit before the projection settled items (2026-12-04), ``context`` gave the old
cards' figures; the first version of this probe had a ``settled`` way, the settling since
adopted in ``decode.py`` (docs/experiments.md, "LIBERO: items in the floor").

Usage: python experiments/libero_probes/transitions.py CHECKPOINT LEVEL [PROMPTS] [WAY ...]

CHECKPOINT may be several folders joined by commas: they imagine as one
(``imaginebench_data.imagine.ensemble``).
"""

import sys
import time
from pathlib import Path

from imaginebench_data.imagine import numerics

numerics.choose("portable")  # before torch's first operation, as the build does

import numpy as np  # noqa: E402

from imaginebench_data.domains import get_domain  # noqa: E402
from imaginebench_data.domains.libero.checks import sunk_into_floor  # noqa: E402
from imaginebench_data.domains.libero.layout import (  # noqa: E402
    ENTITIES,
    FINGERS,
    JOINTS,
    OBJECTS,
    SLOT_START,
)
from imaginebench_data.imagine.ensemble import load_model  # noqa: E402
from imaginebench_data.imagine.evidence import predict_next_states  # noqa: E402
from imaginebench_data.imagine.train import SentenceTable  # noqa: E402
from imaginebench_data.quality.checkers import resimulated, transition_errors  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from grounding_seeds import by_task, imagine_level, imagine_stepped, level_prompts  # noqa: E402

WAYS = ("context", "dynamics", "simulator")
checkpoint, level = sys.argv[1], sys.argv[2]
count = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3].isdigit() else None
ways = [w for w in sys.argv[3:] if w in WAYS] or list(WAYS)
prompts = level_prompts("libero", level)[:count]
model = load_model(checkpoint, "cpu")
domain = get_domain("libero")
sentences = SentenceTable(model.config.sentence_encoder)
tasks = {task.id: task for task in domain.tasks(level)}
sim = domain.simulator()


def from_dynamics(previous, actions):
    """The dynamics prompt's next states, projected onto the scene as the generator's are."""
    return domain.decode_state(previous, predict_next_states(model, domain, previous, actions))


def from_simulator(previous, actions):
    # LIBERO rebuilds a state from its 44 numbers whatever the task, as the transition checker does
    steps = [sim.resimulate(None, state, action, None) for state, action in zip(previous, actions)]
    return domain.decode_state(previous, np.stack(steps))


def in_floor(states: np.ndarray) -> float:
    """Share of ``states`` with an item's centre in the floor."""
    return float(np.any([sunk_into_floor(states, item) for item in OBJECTS], axis=0).mean())


GROUPS = {"arm": slice(JOINTS.start, FINGERS.stop),  # joints, grip site, hand quaternion, fingers
          **{name: slice(SLOT_START[name], SLOT_START[name] + 7) for name in ENTITIES}}


def beyond_by_group(simulated: np.ndarray, stored: np.ndarray) -> dict[str, float]:
    """Per group of state numbers (the arm: joints, grip site and fingers; each item; the
    basket), the share of transitions that group alone puts beyond the tolerance."""
    shares = {}
    for name, group in GROUPS.items():
        mixed = stored.copy()
        mixed[:, group] = simulated[:, group]
        shares[name] = float((domain.transition_distance(mixed, stored) > domain.transition_tolerance).mean())
    return shares


def beyond_tolerance(rollouts) -> tuple[int, int, np.ndarray]:
    """(transitions beyond the tolerance, transitions, whether each rollout has none beyond),
    by the cards' checker; prints the share each group of numbers puts beyond it."""
    beyond = total = 0
    faithful, simulated, stored = [], [], []
    for prompt, rollout in zip(prompts, rollouts):
        task = tasks[prompt.task]
        predicted, stepped = resimulated(sim, task, rollout.states, rollout.actions)
        errors = transition_errors(domain, predicted, stepped, rollout.states[1:])
        beyond += int((errors > domain.transition_tolerance).sum())
        total += len(errors)
        faithful.append(bool((errors <= domain.transition_tolerance).all()))
        simulated.append(predicted[stepped])
        stored.append(rollout.states[1:][stepped])
    groups = beyond_by_group(np.concatenate(simulated), np.concatenate(stored))
    print("  beyond the tolerance by itself: " + ", ".join(f"{k} {100 * v:.1f}%" for k, v in groups.items()))
    return beyond, total, np.array(faithful)


for way in ways:
    started = time.perf_counter()
    if way == "context":
        rollouts = imagine_level(model, domain, level, prompts, sentences)
    else:
        step = from_dynamics if way == "dynamics" else from_simulator
        rollouts = imagine_stepped(model, domain, level, prompts, sentences, step)
    seconds = time.perf_counter() - started
    beyond, total, faithful = beyond_tolerance(rollouts)
    rate = 100 * np.mean([r.success for r in rollouts])
    length = np.mean([len(r.actions) for r in rollouts])
    per_task = {task: f"{100 * np.mean(hits):.0f}%" for task, hits in by_task(prompts, rollouts).items()}
    states = np.concatenate([r.states for r in rollouts])
    raw = np.concatenate([r.raw_states for r in rollouts])
    print(f"{level}, {len(prompts)} prompts, {way}: goal consistency {rate:.1f}%, transitions beyond "
          f"tolerance {100 * beyond / total:.1f}% ({beyond} of {total}), rollouts with none beyond "
          f"{faithful.sum()} ({sum(r.success for r, f in zip(rollouts, faithful) if f)} of them goal "
          f"consistent), states with an item in the floor {100 * in_floor(states):.1f}% (raw model "
          f"output {100 * in_floor(raw):.1f}%), mean length {length:.1f}, {seconds:.0f} s; by task "
          f"{per_task}", flush=True)
