"""Prompting afresh: which segment is prompted when, with what, and how the segments are joined."""

import numpy as np
import pytest
from imagine_helpers import CLEVR, set_heads, tiny_model

import imaginebench_data.imagine.prompting as prompting
from imaginebench_data.domains import get_domain
from imaginebench_data.domains.clevr.tasks import PROMPT_STEPS, subgoals
from imaginebench_data.imagine.generate import Prompt, imagine_batch

STEP = 0.05  # red moves -x (left), green +y (behind) by this much per imagined step
DELTA = np.array([-STEP, 0, 0, 0, 0, STEP, 0, 0, 0, 0], np.float32)
GREEN_ONLY = np.array([0, 0, 0, 0, 0, STEP, 0, 0, 0, 0], np.float32)


def no_sentence(text):
    return None


def hard_task(task_id):
    return CLEVR.task("hard", task_id)


def start_state(red_x=0.31, green_y=-0.76):
    # red right of blue, reaching "left of blue" at step 7; green in front of purple, reaching
    # "behind purple" at step 10 (no state lies on a sector's edge)
    return np.array([red_x, 0.0, 0.0, 0.0, -0.6, green_y, -0.6, -0.3, 0.6, 0.6], np.float32)


@pytest.fixture
def calls(monkeypatch):
    """The prompts of every batch of segments generated."""
    seen = []

    def spy(model, prompts, *args):
        seen.append(list(prompts))
        return imagine_batch(model, prompts, *args)

    monkeypatch.setattr(prompting, "imagine_batch", spy)
    return seen


def test_a_multi_relation_task_is_made_of_its_training_relations():
    task = hard_task("red-left-of-blue+green-behind-purple")
    assert [g.id for g in subgoals(task)] == ["red-left-of-blue", "green-behind-purple"]
    assert all(g.level == "train" for g in subgoals(task))
    three = next(t for t in CLEVR.tasks("hard") if t.kind == "relations3")
    assert [g.goal for g in subgoals(three)] == [
        {"kind": "relation", "src": s, "dst": d, "relation": r} for s, d, r in three.goal["relations"]]
    assert subgoals(hard_task("line-in-colour-order")) == subgoals(hard_task("gather-around-green")) == ()
    assert subgoals(CLEVR.tasks("train")[0]) == ()


def test_relations_are_prompted_one_after_another_and_joined(calls):
    task = hard_task("red-left-of-blue+green-behind-purple")
    model = tiny_model()
    set_heads(model, action=5, delta=DELTA)
    start = start_state()
    [rollout] = prompting.imagine_segments_batch(model, [Prompt(task, task.phrasings[0], start)], no_sentence,
                                                 steps=PROMPT_STEPS, subgoals=subgoals)
    first, second = subgoals(task)
    assert [[p.task.id for p in batch] for batch in calls] == [[first.id], [second.id]]
    assert calls[0][0].instruction in first.phrasings and calls[1][0].instruction in second.phrasings
    np.testing.assert_allclose(calls[1][0].start, start + 7 * DELTA, atol=1e-5)  # where the first stopped
    assert calls[1][0].task.horizon == PROMPT_STEPS
    assert rollout.success and len(rollout.actions) == 10 and (rollout.actions == 5).all()
    path = start + np.arange(11)[:, None] * DELTA
    np.testing.assert_allclose(rollout.states, path, atol=1e-5)
    np.testing.assert_allclose(rollout.raw_states, path, atol=1e-5)
    reached = task.success(path[:-1], np.full(10, 5), path[1:])
    assert np.flatnonzero(reached)[0] == 9  # the whole task first holds on the last transition


def test_a_relation_already_holding_is_not_prompted(calls):
    task = hard_task("red-left-of-blue+green-behind-purple")
    model = tiny_model()
    set_heads(model, action=5, delta=GREEN_ONLY)
    start = start_state(red_x=-0.1)  # red already left of blue, and stays so
    [rollout] = prompting.imagine_segments_batch(model, [Prompt(task, task.phrasings[0], start)], no_sentence,
                                                 steps=PROMPT_STEPS, subgoals=subgoals)
    assert [[p.task.id for p in batch] for batch in calls] == [["green-behind-purple"]]
    assert rollout.success and len(rollout.actions) == 10


def test_a_task_without_sub_goals_is_prompted_again_with_its_own_instruction(calls):
    model = tiny_model()
    set_heads(model, action=5, delta=DELTA)
    task = CLEVR.tasks("rephrase")[0]
    prompts = [Prompt(task, task.phrasings[2], start_state()),
               Prompt(task, task.phrasings[1], start_state(0.61))]
    segmented = prompting.imagine_segments_batch(model, prompts, no_sentence, steps=4, subgoals=subgoals)
    plain = imagine_batch(model, prompts, no_sentence)
    # red behind blue, never reached moving left: 13 segments of 4 steps (the last of 2), each
    # with its rollout's own instruction, from where the last one stopped
    instructions = [[p.instruction for p in batch] for batch in calls]
    assert instructions == [[task.phrasings[2], task.phrasings[1]]] * 13
    assert [batch[0].task.horizon for batch in calls] == [4] * 12 + [2]
    np.testing.assert_allclose(calls[5][0].start, start_state() + 20 * DELTA, atol=1e-5)
    for a, b in zip(segmented, plain):  # a model that ignores its prompt: the same rollout
        np.testing.assert_array_equal(a.actions, b.actions)
        np.testing.assert_allclose(a.states, b.states, atol=1e-5)
        assert a.success == b.success


def test_without_segments_it_is_plain_generation(calls):
    model = tiny_model(seed=3)
    prompts = [Prompt(hard_task(i), hard_task(i).phrasings[1], start_state())
               for i in ("line-in-colour-order", "gather-around-green")]
    assert not prompting.segmented(prompts, None, subgoals)
    one = prompting.imagine_segments_batch(model, prompts, no_sentence, subgoals=subgoals)
    plain = imagine_batch(model, prompts, no_sentence)
    assert len(calls) == 1 and [p.instruction for p in calls[0]] == [p.instruction for p in prompts]
    for a, b in zip(one, plain):
        np.testing.assert_array_equal(a.actions, b.actions)
        np.testing.assert_array_equal(a.states, b.states)


def test_which_prompts_are_segmented():
    easy = [Prompt(t, t.phrasings[0], start_state()) for t in CLEVR.tasks("easy")]
    rephrase = [Prompt(t, t.phrasings[0], start_state()) for t in CLEVR.tasks("rephrase")[:3]]
    hard = [Prompt(t, t.phrasings[0], start_state()) for t in CLEVR.tasks("hard")]
    assert not prompting.segmented(easy, PROMPT_STEPS, subgoals)  # one step: never
    assert prompting.segmented(rephrase, PROMPT_STEPS, subgoals)
    assert not prompting.segmented(rephrase, 50, None)  # no task longer than 50 steps
    assert prompting.segmented(hard[:1], None, subgoals)  # two relations
    assert not prompting.segmented(hard[-2:], None, subgoals)  # the line, the gathering


def test_a_stuck_sub_goal_is_prompted_again_until_the_task_time_limit(calls):
    task = hard_task("red-left-of-blue+green-behind-purple")
    model = tiny_model()
    set_heads(model, action=0, delta=np.zeros(10))
    [rollout] = prompting.imagine_segments_batch(model, [Prompt(task, task.phrasings[0], start_state())],
                                                 no_sentence, steps=PROMPT_STEPS, subgoals=subgoals)
    # the first relation, prompted afresh every PROMPT_STEPS steps in the next phrasing
    assert len(calls) == task.horizon // PROMPT_STEPS == 5
    assert {batch[0].task.id for batch in calls} == {"red-left-of-blue"}
    phrasings = subgoals(task)[0].phrasings
    assert [batch[0].instruction for batch in calls] == [phrasings[k % len(phrasings)] for k in range(5)]
    assert not rollout.success and len(rollout.actions) == task.horizon
    assert rollout.states.shape == (task.horizon + 1, 10)


def test_rollouts_come_back_in_order_whatever_their_segments(calls):
    task = hard_task("red-left-of-blue+green-behind-purple")
    model = tiny_model()
    set_heads(model, action=5, delta=DELTA)
    # the second reaches the whole task in its first segment: green is behind purple from step 6
    prompts = [Prompt(task, task.phrasings[0], start_state(green_y=y)) for y in (-0.76, -0.56, -0.76)]
    rollouts = list(prompting.imagine_segments(model, prompts, no_sentence, steps=PROMPT_STEPS,
                                               subgoals=subgoals, batch_size=2))
    assert [len(r.actions) for r in rollouts] == [10, 7, 10] and all(r.success for r in rollouts)
    assert [len(batch) for batch in calls] == [2, 1, 1, 1]  # both, the one still going; the third, twice
    for prompt, rollout in zip(prompts, rollouts):
        np.testing.assert_allclose(rollout.states[0], prompt.start)


def test_babyai_key_then_door_is_the_key_of_the_start_then_its_door():
    babyai = get_domain("babyai")
    [key_then_open] = [t for t in babyai.tasks("hard") if t.kind == "key-then-open"]
    state = np.array([4, 6, 1, 1, 4, 5, 3, 3, 1, 3, 4, 7, 2, 3, 6, 0, 0], np.float32)  # purple key and door
    assert [g.id for g in babyai.subgoals(key_then_open, state)] == ["pickup-purple-key", "open-purple-door"]
    state[6] = 5  # a grey key
    assert [g.id for g in babyai.subgoals(key_then_open, state)][0] == "pickup-grey-key"
    first, second = babyai.subgoals(key_then_open, state)
    assert not prompting.holds(first, state) and not prompting.holds(second, state)
    held = state.copy()
    held[6:9], held[15:17] = (5, 0, 0), (5, 5)  # the grey key carried
    assert prompting.holds(first, held) and not prompting.holds(second, held)
    assert all(babyai.subgoals(t, state) == () for t in babyai.tasks("hard") if t is not key_then_open)


def test_babyai_open_then_an_object_is_the_door_then_the_object_nearest_the_agent():
    babyai = get_domain("babyai")
    easy = {t.kind: t for t in babyai.tasks("easy")}
    # ball (red) at (6, 1), box (green) at (4, 5), key (blue) at (3, 1), yellow door; agent at (3, 6)
    state = np.array([0, 6, 1, 1, 4, 5, 2, 3, 1, 4, 4, 7, 1, 3, 6, 0, 0], np.float32)
    assert [g.id for g in babyai.subgoals(easy["open-then-goto"], state)] == [
        "open-yellow-door", "goto-green-box"]
    assert [g.id for g in babyai.subgoals(easy["open-then-pickup"], state)] == [
        "open-yellow-door", "pickup-green-box"]
    state[13:15] = (5, 1)  # the agent beside the ball now
    assert babyai.subgoals(easy["open-then-pickup"], state)[1].id == "pickup-red-ball"
    assert babyai.subgoals(easy["goto-wall"], state) == babyai.subgoals(easy["goto-centre"], state) == ()
