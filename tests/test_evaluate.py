"""evaluate(): tasks cycled evenly, per-task success counts, the overall rate."""

from __future__ import annotations

import numpy as np
import pytest

from imaginebench_data.domains import get_domain
from imaginebench_data.loader import evaluate

# Action = ball * 8 + direction, directions +x, +y, -x, -y; relation -> direction.
DIRECTION = {"right": 0, "behind": 1, "left": 2, "front": 3}


def oracle_policy():
    """Reads the instruction, finds the easy task it phrases, pushes that ball that way."""
    action = {}
    for task in get_domain("clevr").tasks("easy"):
        for text in task.phrasings:
            assert text not in action, f"phrasing {text!r} is shared by two tasks"
            action[text] = task.goal["ball"] * 8 + DIRECTION[task.goal["relation"]]
    return lambda obs: action[obs["instruction"]]


def test_oracle_solves_every_easy_task():
    df = evaluate(oracle_policy(), level="easy", seed=0)
    tasks = [t.id for t in get_domain("clevr").tasks("easy")]
    assert df["task_id"].tolist() == tasks and len(tasks) == 20
    assert df["episodes"].tolist() == [1] * 20
    assert df["successes"].tolist() == [1] * 20
    assert df.attrs["success_rate"] == 1.0
    np.testing.assert_allclose(df["mean_return"], 1.0)  # easy reward: 1 on success
    np.testing.assert_allclose(df["mean_length"], 1.0)


def test_constant_policy_only_solves_push_red_right():
    # Action 0 pushes red along +x, which is "right": it solves push-red-right and nothing else.
    df = evaluate(lambda obs: np.int64(0), level="easy", episodes=40, seed=1, progress=False)
    assert df["episodes"].tolist() == [2] * 20
    solved = df.loc[df["successes"] > 0, "task_id"].tolist()
    assert solved == ["push-red-right"]
    assert df.set_index("task_id").loc["push-red-right", "successes"] == 2
    assert df.attrs["success_rate"] == pytest.approx(2 / 40)
    assert df["success_rate"].sum() == pytest.approx(1.0)


def test_uneven_episodes_warn_and_cycle():
    with pytest.warns(UserWarning, match="not a multiple"):
        df = evaluate(lambda obs: 0, level="easy", episodes=25, progress=False)
    assert df["episodes"].tolist() == [2] * 5 + [1] * 15
    assert df.attrs["episodes"] == 25
    assert df.attrs["success_rate"] == pytest.approx(2 / 25)  # red-right is the 4th task: played twice


def test_train_level_truncates_at_the_horizon():
    seen = []

    def policy(obs):
        seen.append(obs)
        return 39  # push cyan along -x-y

    with pytest.warns(UserWarning, match="not a multiple"):
        df = evaluate(policy, level="train", episodes=4, progress=False)
    tasks = get_domain("clevr").tasks("train")
    assert df["task_id"].tolist() == [t.id for t in tasks[:4]]
    assert seen[0]["state"].shape == (10,) and isinstance(seen[0]["instruction"], str)
    assert seen[0]["instruction"] in tasks[0].phrasings
    # The first four tasks relate red and blue; pushing cyan moves neither, so every episode
    # fails, earns nothing, and lasts exactly the horizon: 4 x 50 observations seen.
    assert df["successes"].tolist() == [0, 0, 0, 0]
    assert df["mean_return"].tolist() == [0.0] * 4
    assert df["mean_length"].tolist() == [50.0] * 4
    assert len(seen) == 200 and df.attrs["success_rate"] == 0.0


@pytest.mark.parametrize("domain, output, shown", [
    ("clevr", np.array([1, 2]), r"shape \(2,\).*expected one integer for the env's Discrete\(40\)"),
    ("clevr", "left", r"dtype <U4\); expected one integer"),
    ("halfcheetah", np.zeros(3), r"shape \(3,\).*expected \(6,\) numbers for the env's Box"),
])
def test_a_policy_output_of_the_wrong_shape_is_named(domain, output, shown):
    """Found 2026-12-06: numpy's "operands could not be broadcast together" from inside the clip."""
    with pytest.raises(ValueError, match=shown):
        evaluate(lambda obs: output, domain=domain, level="rephrase", episodes=1, progress=False)


def test_a_batch_of_one_is_its_row_and_episodes_must_be_a_count():
    df = evaluate(lambda obs: np.array([[0]]), level="easy", episodes=20, progress=False)
    np.testing.assert_array_equal(df["episodes"], 1)  # (1, 1) taken as the one action
    for bad in ("x", 2.5, True):
        with pytest.raises(ValueError, match="episodes must be a positive integer or None"):
            evaluate(lambda obs: 0, level="easy", episodes=bad, progress=False)
