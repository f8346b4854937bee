"""A tiny build of halfcheetah-train-real from its real recipe, loaded back the way a user would."""

import json

from fresh import run_fresh
from tiny import tiny_real_build

TRAIN = "imaginebench/halfcheetah-train-real-v0"


def test_tiny_build_loads_in_a_fresh_process_with_its_eval_env(minari_root, tmp_path):
    # episodes 2 and 3 of the recipe: jump-forward and jump-backward (5 steps each)
    card = tiny_real_build(TRAIN, 4, tmp_path)
    assert card.domain == "halfcheetah" and card.tasks == 4
    assert set(card.illegal_by_kind) == {"joint_out_of_range", "too_fast", "torso_in_floor",
                                            "bad_counters", "non_finite"}
    assert (tmp_path / "cards" / "halfcheetah-train-real-v0.json").stat().st_size > 0
    code = """
        import json, sys, minari, numpy as np
        assert not any(m.startswith("imaginebench") for m in sys.modules)
        ds = minari.load_dataset("imaginebench/halfcheetah-train-real-v0")
        env = ds.recover_environment(eval_env=True)
        obs, info = env.reset(seed=0)
        ep = ds[0]
        states = ep.observations["state"]
        first = {"state": states[0], "instruction": ep.observations["instruction"][0]}
        obs, reward, terminated, truncated, info = env.step(ep.actions[0])
        print(json.dumps({
            "episodes": ds.total_episodes, "steps": ds.total_steps,
            "shape": list(states.shape), "actions": list(ep.actions.shape),
            "sim_state": list(ep.infos["sim_state"].shape),
            "reset": [float(v) for v in states[0, [0, 18, 19, 20, 21]]],
            "max_abs_action": float(np.abs(ep.actions).max()),
            "contains": bool(ds.observation_space.contains(first))
                        and bool(env.observation_space.contains(obs)),
            "env": env.spec.id, "level": env.spec.kwargs["level"], "success_info": "success" in info,
            "task_ids": [str(m["options"]["task_id"])
                         for m in ds.storage.get_episode_metadata(range(ds.total_episodes))],
        }))
    """
    seen = json.loads(run_fresh(code, minari_root))
    assert seen["episodes"] == 4 and seen["steps"] == card.steps
    steps = seen["actions"][0]
    assert seen["shape"] == [steps + 1, 22] and seen["actions"] == [steps, 6]
    assert seen["sim_state"] == [steps + 1, 22]
    assert seen["reset"] == [0.0] * 5 and seen["max_abs_action"] <= 1.0
    assert seen["contains"] and seen["success_info"]
    assert seen["env"] == "imaginebench/HalfCheetah-v0" and seen["level"] == "train"
    assert seen["task_ids"] == ["run-forward", "run-backward", "jump-forward", "jump-backward"]
