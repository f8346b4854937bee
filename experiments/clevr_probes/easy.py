"""Probe a CLEVR checkpoint on the easy level: what its one push gets wrong, and whether the
model's own explain task picks a better push.

The easy level's prompts of the committed card (its recipe's seed 3000 and demo count, 400; every task is
one push of one ball in one direction). For each prompt:

1. the action head's choice (what the imagined set stores): is its ball the instructed one,
   and does the push reach the goal in the simulator; against it, a push of the instructed
   ball in one of its 8 directions drawn at random; the goal rate by direction;
2. every one of the 40 actions carried one step by the rollout context, and scored by the
   explain task, log p(instruction | s0 a s1); the push chosen by
   ``log p_head(a) + w * log p_explain`` for a few weights ``w`` (all words of the instruction,
   or those the word-level tokenizer knows), with the goal rate on the imagined step and in
   the simulator.

Usage: MINARI_DATASETS_PATH=... python experiments/clevr_probes/easy.py CHECKPOINT [PROMPTS]
It uses the generator's private pieces (``generate._Batch``, ``_succeeded``): a probe, not API.
"""

import sys
import time

from imaginebench_data.imagine import numerics

numerics.choose("portable")  # before torch's first operation, as the build does

import numpy as np  # noqa: E402
import torch  # noqa: E402

from imaginebench_data.domains import get_domain  # noqa: E402
from imaginebench_data.domains.clevr.sim import N_BALLS, N_DIRECTIONS  # noqa: E402
from imaginebench_data.imagine.backbone import slot_token_id  # noqa: E402
from imaginebench_data.imagine.checkpoint import load_checkpoint  # noqa: E402
from imaginebench_data.imagine.data import collate  # noqa: E402
from imaginebench_data.imagine.determinism import pinned  # noqa: E402
from imaginebench_data.imagine.generate import Prompt, _Batch, _succeeded  # noqa: E402
from imaginebench_data.imagine.sequences import (  # noqa: E402
    EXPLAIN_BRIDGE,
    EXPLAIN_PREFIX,
    IGNORE,
    SequenceBuilder,
)
from imaginebench_data.imagine.train import SentenceTable  # noqa: E402
from imaginebench_data.pipeline.recipe import load_recipes  # noqa: E402
from imaginebench_data.pipeline.rollout import episode_start  # noqa: E402

RECIPE = load_recipes()["imaginebench/clevr-easy-imaginary-v0"]  # its seed and demo count
WEIGHTS = (0.25, 0.5, 1, 2, 4)

model = load_checkpoint(sys.argv[1], "cpu")
count = int(sys.argv[2]) if len(sys.argv) > 2 else RECIPE.episodes["demo"]
domain = get_domain("clevr")
sim = domain.simulator()
prompts = [Prompt(s.task, s.instruction, s.state)
           for s in (episode_start(domain, "easy", i, RECIPE.seed, sim) for i in range(count))]
sentences = SentenceTable(model.config.sentence_encoder)
tokenizer, actions = model.tokenizer, model.config.action_dim
slot = slot_token_id(tokenizer)
s0 = np.stack([p.start for p in prompts]).astype(np.float32)


def explained(chunk: list[Prompt]):
    """Per prompt: log p_head of each action (A,), each action's next state (A, D), and
    log p_explain of the instruction after each action, all words and known words (A,)."""
    batch = _Batch(model, chunk, sentences)
    hidden, _, _ = model.run(batch.embeds, batch.attention, batch.positions)
    head = torch.log_softmax(model.action_output(hidden[:, -1]), -1)
    every = torch.arange(actions).repeat(len(chunk))
    embeds = torch.cat([batch.embeds.repeat_interleave(actions, 0),
                        model.embed_actions(every)[:, None].to(batch.embeds.dtype)], 1)
    attention = batch.attention.repeat_interleave(actions, 0)
    attention = torch.cat([attention, attention.new_ones(len(attention), 1)], 1)
    positions = batch.positions.repeat_interleave(actions, 0)
    positions = torch.cat([positions, positions[:, -1:] + 1], 1)
    hidden, _, _ = model.run(embeds, attention, positions)
    start = torch.from_numpy(np.stack([p.start for p in chunk]).astype(np.float32))
    start = start.repeat_interleave(actions, 0)
    raw = model.next_state(hidden[:, -1], start).numpy()
    after = np.asarray(domain.decode_state(start.numpy(), raw.copy()), np.float32)
    sequences = []
    for i, prompt in enumerate(chunk):
        for a in range(actions):
            b = SequenceBuilder(tokenizer, slot, model.config.state_dim, (), np.int64)
            b.text(EXPLAIN_PREFIX).trajectory(np.stack([prompt.start, after[i * actions + a]]), np.array([a]),
                                              supervised=False)
            sequences.append(b.text(EXPLAIN_BRIDGE).text(" " + prompt.instruction, supervised=True).build())
    cols = collate(sequences, tokenizer.pad_token_id, model.config.max_positions, None)
    embeds = model.embed(cols["ids"], cols["kind"], cols["states"], cols["actions"], cols["sentence"])
    _, logits, _ = model.run(embeds, cols["attention_mask"], cols["position_ids"])
    labels = cols["labels"]
    words = torch.log_softmax(logits.float(), -1).gather(-1, labels.clamp(min=0)[..., None])[..., 0]
    scored = labels != IGNORE
    known = scored & (labels != tokenizer.unk_token_id)
    shape = (len(chunk), actions)
    return (head.numpy(), after.reshape(*shape, -1), (words * scored).sum(1).view(shape).numpy(),
            (words * known).sum(1).view(shape).numpy())


started = time.time()
with torch.no_grad(), pinned():
    parts = [explained(prompts[k : k + 20]) for k in range(0, count, 20)]
head, after, text_all, text_known = (np.concatenate(p) for p in zip(*parts))
print(f"{count} prompts x {actions} actions scored in {time.time() - started:.0f} s")


def reached(prompt: Prompt, action: int) -> bool:
    """Whether ``action`` from the prompt's start reaches the goal in the simulator."""
    after_sim = sim.resimulate(prompt.task, prompt.start, int(action))
    return bool(prompt.task.success(prompt.start[None], np.array([action]), after_sim[None])[0])


def rates(choice: np.ndarray) -> tuple[float, float]:
    """Goal consistency (%) of the pushes ``choice``: on the imagined step, in the simulator."""
    imagined = _succeeded(prompts, s0, choice, after[np.arange(count), choice])
    return 100 * imagined.mean(), 100 * np.mean([reached(p, a) for p, a in zip(prompts, choice)])


choice = head.argmax(1)
instructed = np.array([p.task.goal["ball"] for p in prompts])
solved = np.array([reached(p, a) for p, a in zip(prompts, choice)])
right_ball = choice // N_DIRECTIONS == instructed
print(f"action head: goal reached in the simulator {100 * solved.mean():.1f}%")
print(f"  its ball is the instructed one in {100 * right_ball.mean():.1f}%")
print(f"  goal reached when the ball is right {100 * solved[right_ball].mean():.1f}%")
chance = np.mean([np.mean([reached(p, a) for a in range(N_DIRECTIONS * ball, N_DIRECTIONS * (ball + 1))])
                  for p, ball in zip(prompts, instructed)])
print(f"  a push of the instructed ball in a random direction reaches the goal in {100 * chance:.1f}%")
mass = np.exp(head).reshape(count, N_BALLS, N_DIRECTIONS).sum(2)[np.arange(count), instructed]
print(f"probability the head puts on the instructed ball's 8 pushes: {mass.mean():.2f} (mean)")
for direction in ("behind", "left", "front", "right"):
    rows = np.array([p.task.goal["relation"] == direction for p in prompts])
    print(f"  {direction:>6}: goal reached {100 * solved[rows].mean():.0f}%")
for weight in WEIGHTS:
    for label, text in (("all words", text_all), ("known words", text_known)):
        imagined, real = rates((head + weight * text).argmax(1))
        print(f"head + {weight:g} x explain ({label}): imagined {imagined:.1f}%, simulator {real:.1f}%")
for label, text in (("all words", text_all), ("known words", text_known)):
    imagined, real = rates(text.argmax(1))
    print(f"explain alone ({label}): imagined {imagined:.1f}%, simulator {real:.1f}%")
