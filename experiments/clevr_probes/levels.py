"""Goal consistency of a CLEVR checkpoint (or several joined by commas, imagining as one:
``imaginebench_data.imagine.ensemble``) on the three demo levels, imagined as the generator
does and in closed loop (each predicted state replaced by the simulator's next state under the
model's push; ``../grounding_seeds.py``'s ``closed_loop``).

The prompts are those of the committed demo cards (each recipe's seed and demo count), so a
checkpoint's imagined figures are what its build's cards would say.

Usage: MINARI_DATASETS_PATH=... python experiments/clevr_probes/levels.py CHECKPOINT[,CHECKPOINT...]
"""

import sys
import time
from pathlib import Path

from imaginebench_data.imagine import numerics

numerics.choose("portable")  # before torch's first operation, as the build does

import numpy as np  # noqa: E402

from imaginebench_data.domains import get_domain  # noqa: E402
from imaginebench_data.imagine.ensemble import load_model  # noqa: E402
from imaginebench_data.imagine.train import SentenceTable  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from grounding_seeds import closed_loop, imagine_level, level_prompts  # noqa: E402

model = load_model(sys.argv[1], "cpu")
clevr = get_domain("clevr")
sentences = SentenceTable(model.config.sentence_encoder)
for level in ("rephrase", "easy", "hard"):
    started = time.time()
    prompts = level_prompts("clevr", level)
    imagined = np.mean([r.success for r in imagine_level(model, clevr, level, prompts, sentences)])
    closed = np.mean([r.success for r in closed_loop(model, clevr, level, prompts, sentences)])
    print(f"{level}: {len(prompts)} prompts, imagined goal consistency {100 * imagined:.2f}%, "
          f"closed loop {100 * closed:.2f}% ({time.time() - started:.0f} s)", flush=True)
