"""A tiny build of babyai-train-real from its real recipe, loaded back the way a user would."""

import json

from fresh import run_fresh
from tiny import tiny_real_build

TRAIN = "imaginebench/babyai-train-real-v0"


def test_tiny_build_loads_in_a_fresh_process_with_its_eval_env(minari_root, tmp_path):
    card = tiny_real_build(TRAIN, 6, tmp_path)
    assert card.domain == "babyai"
    assert set(card.illegal_by_kind) >= {"overlap", "agent_in_wall", "non_finite"}
    assert (tmp_path / "cards" / "babyai-train-real-v0.json").stat().st_size > 0
    code = """
        import json, sys, minari
        assert not any(m.startswith("imaginebench") for m in sys.modules)
        ds = minari.load_dataset("imaginebench/babyai-train-real-v0")
        env = ds.recover_environment(eval_env=True)
        obs, info = env.reset(seed=0)
        ep = ds[0]
        first = {"state": ep.observations["state"][0], "instruction": ep.observations["instruction"][0]}
        obs, reward, terminated, truncated, info = env.step(int(ep.actions[0]))
        print(json.dumps({
            "episodes": ds.total_episodes, "steps": ds.total_steps,
            "rows": len(ep.observations["state"]), "actions": len(ep.actions),
            "contains": bool(ds.observation_space.contains(first))
                        and bool(env.observation_space.contains(obs)),
            "env": env.spec.id, "level": env.spec.kwargs["level"], "success_info": "success" in info,
            "task_ids": sorted({str(m["options"]["task_id"])
                                for m in ds.storage.get_episode_metadata(range(ds.total_episodes))}),
        }))
    """
    seen = json.loads(run_fresh(code, minari_root))
    assert seen["episodes"] == 6 and seen["steps"] == card.steps and seen["rows"] == seen["actions"] + 1
    assert seen["contains"] and seen["success_info"]
    assert seen["env"] == "imaginebench/BabyAI-v0" and seen["level"] == "train"
    assert len(seen["task_ids"]) == 6  # episodes cycle through distinct tasks
