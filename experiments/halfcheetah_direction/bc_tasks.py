"""BC on HalfCheetah's training set at each step count given, 2 seeds: success per training task.

BC with HalfCheetah's settings (states standardized, history columns left out, 21 bins per
action number), trained and evaluated as ``imaginebench evaluate --level train`` does it.

    python experiments/halfcheetah_direction/bc_tasks.py 600 1500 5000
"""

import sys

from imaginebench_data.baselines.compare import eval_episodes, train_policy
from imaginebench_data.loader.evaluate import evaluate

OPTIONS = {"normalize": True, "history": False, "bins": 21}
TRAIN = {"imaginebench/halfcheetah-train-real-v0": 1.0}

for steps in map(int, sys.argv[1:]):
    for seed in (0, 1):
        policy, _ = train_policy("bc", TRAIN, steps, seed, "minilm", {}, OPTIONS)
        policy.rewind()
        result = evaluate(policy, "halfcheetah", "train", episodes=eval_episodes("halfcheetah", "train"),
                          seed=1000 + seed, progress=False)
        print(steps, seed, dict(zip(result.task_id, result.success_rate)), flush=True)
