"""LIBERO's training copies with other items already in the basket (domains/libero/copies.py):
which items move, where they land, and that the copies are states the projection and the
checkers accept, on hand-built episodes."""

import dataclasses

import numpy as np
import pytest
from test_libero_domain import scene

from imaginebench_data import get_domain
from imaginebench_data.core.episode import Episode
from imaginebench_data.domains.libero.copies import basket_copy, basket_rows, copied_phrasings
from imaginebench_data.domains.libero.decode import project_onto_scene
from imaginebench_data.domains.libero.layout import OBJECTS, SLOT_START

LB = get_domain("libero")


def slot(name: str) -> slice:
    return slice(SLOT_START[name], SLOT_START[name] + 7)


def in_basket(states: np.ndarray, item: str) -> np.ndarray:
    task = LB.task("train", f"place-{item}")
    return task.success(states, np.zeros((len(states), 7), np.float32), states)


def pick_episode(item: str = "cream_cheese", level: str = "train") -> Episode:
    """The hand going from home down to ``item`` and lifting it, 6 states."""
    start = scene()
    goal = start[slot(item)][:3]
    path = [(1 - f) * start[7:10] + f * (goal + (0, 0, 0.02)) for f in np.linspace(0, 1, 6)]
    states = np.stack([scene(eef=tuple(eef)) for eef in path])
    states[-1, slot(item)][2] += 0.03  # lifted with the hand at the last step
    states[-1, 9] += 0.03
    task = LB.task(level, f"pick-{item}")
    return Episode(states=states.astype(np.float32), actions=np.zeros((5, 7), np.float32),
                   rewards=np.zeros(5), terminations=np.eye(5, dtype=bool)[-1], truncations=np.zeros(5, bool),
                   infos={}, task_id=task.id, level=level, phrasing_id=0, instruction=task.phrasings[0],
                   source="real", seed=0)


def test_a_copy_puts_only_the_items_the_task_leaves_in_the_basket_and_nothing_else_changes():
    episode = pick_episode("cream_cheese")
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(40):
        copy = basket_copy(episode, rng)
        np.testing.assert_array_equal(copy.actions, episode.actions)
        assert (copy.task_id, copy.instruction) == (episode.task_id, episode.instruction)
        # the arm, the basket and the task's own item exactly as they were
        for kept in (slice(0, 16), slot("cream_cheese"), slot("basket")):
            np.testing.assert_array_equal(copy.states[:, kept], episode.states[:, kept])
        moved = tuple(o for o in ("alphabet_soup", "salad_dressing")
                      if not np.array_equal(copy.states[:, slot(o)], episode.states[:, slot(o)]))
        for item in moved:
            assert in_basket(copy.states, item).all()  # in every state of the episode
            assert np.ptp(copy.states[:, slot(item)], axis=0).max() == 0  # and still
        assert (copy is episode) == (not moved)
        seen.add(moved)
    assert seen == {(), ("alphabet_soup",), ("salad_dressing",), ("alphabet_soup", "salad_dressing")}


def test_copies_are_legal_and_the_projection_keeps_them_as_they_are():
    rng = np.random.default_rng(1)
    for item in OBJECTS:
        episode = pick_episode(item)
        copy = episode
        while copy is episode:  # a copy with at least one item moved
            copy = basket_copy(episode, rng)
        assert not LB.illegal(copy.states).any()
        projected = project_onto_scene(copy.states[:-1], copy.states[1:])
        np.testing.assert_allclose(projected, copy.states[1:], atol=1e-6)


@pytest.mark.parametrize("level, task_id", [("easy", "reach-cream_cheese"), ("train", "unresolved")])
def test_episodes_of_other_levels_or_tasks_are_not_copied_and_draw_nothing(level, task_id):
    episode = dataclasses.replace(pick_episode(), level=level, task_id=task_id)
    rng = np.random.default_rng(2)
    assert basket_copy(episode, rng) is episode
    assert rng.random() == np.random.default_rng(2).random()


def test_rows_are_copied_by_their_own_instruction_and_others_stay():
    episode = pick_episode("alphabet_soup")
    states = np.repeat(episode.states[:1], 200, axis=0)
    texts = [episode.instruction] * 100 + ["an instruction of no training task"] * 100
    copied, actions, copied_texts = basket_rows(states, np.zeros((200, 7)), texts, np.random.default_rng(3))
    assert copied_texts == texts and copied.shape == states.shape
    np.testing.assert_array_equal(copied[100:], states[100:])
    np.testing.assert_array_equal(copied[:, slot("alphabet_soup")], states[:, slot("alphabet_soup")])
    moved = ~np.all(copied[:100] == states[:100], axis=1)
    assert 60 < moved.sum() < 90  # each of two others with probability 1/2: 3/4 of the rows
    for item in ("cream_cheese", "salad_dressing"):
        changed = ~np.all(copied[:100, slot(item)] == states[:100, slot(item)], axis=1)
        assert in_basket(copied[:100][changed], item).all()
    assert episode.instruction in copied_phrasings()
    assert set(LB.task("rephrase", "place-salad_dressing").phrasings) <= set(copied_phrasings())
