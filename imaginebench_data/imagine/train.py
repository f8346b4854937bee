"""Grounding: fine-tune a causal LM (or train the scratch GPT-2) on the three supervised tasks."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from tqdm.auto import tqdm

from ..core.devices import torch_device
from ..core.task import LEVELS
from ..datasets.ids import DatasetId
from ..domains import get_domain
from ..loader.encoders import encode_each, get_encoder
from .backbone import backbone_for, slot_token_id
from .checkpoint import checkpoint_hash, save_checkpoint
from .config import SCRATCH, GroundingConfig
from .data import SequenceFactory, collate, read_episodes, require_held_out, split, training_phrasings
from .determinism import pinned
from .distributed import data_parallel, target_counts, target_share
from .model import GroundedLM
from .numerics import on_device as numerics_on
from .precision import resolve as resolve_precision


@dataclass
class TrainSettings:
    """Optimisation settings. ``lr`` None: 1e-3 for the scratch backbone, 2e-4 with LoRA,
    5e-5 (the paper's) for full fine-tuning of a pretrained backbone. ``precision``: one of
    ``precision.PRECISIONS`` (auto: fp32 on a CPU; on a GPU bf16-mixed, or bf16 with LoRA)."""

    epochs: int = 20
    batch_size: int = 32
    lr: float | None = None
    weight_decay: float = 0.01
    warmup_steps: int = 50
    dynamics_per_episode: int = 2
    seed: int = 0
    precision: str = "auto"
    # Opt-in levers, measured on HalfCheetah (docs/experiments.md, "HalfCheetah's direction:
    # three more probes"); off, the grounding is what it was, bit for bit:
    hide_history: bool = False  # the state adapter sees the domain's history_columns as their mean
    # the state adapter sees the columns the training set never varied as that constant value
    # (measured on Meta-World, whose novel scenes fill entity slots empty in every training state:
    # docs/experiments.md, "Meta-World: the slots the model was never shown")
    hide_unseen: bool = False
    # sequences of at most SHORT positions batched apart from longer ones (the learning-rate
    # schedule counts the batches as if mixed, up to one fewer per epoch: the few steps past
    # its end get a learning rate of 0)
    short_apart: bool = False
    # > 0: the epoch's shuffled sequences cut into pools of this many batches, each pool sorted
    # by length before it is cut into batches (so a batch pads little), all batches shuffled; it
    # supersedes short_apart (docs/experiments.md, "CLEVR: batches of like lengths")
    length_pool: int = 0
    # > 1: each batch sorted by length and run as this many parts of about equal count, each
    # padded to its own longest, the gradients summed: the batch's mean losses and gradient as
    # one part gives, up to the order of floating-point sums, for less padding (one process only)
    length_split: int = 0
    action_bins: int = 0  # continuous actions: the action head's values per number (0: regression)
    # measured on Meta-World (docs/experiments.md, "Meta-World: one-step rollouts"): the action
    # loss counted this many times in the sum that is minimised (the logged losses stay
    # unweighted; x10 did not help), and one-step rollouts per episode and epoch, the rollout
    # task prompted at a random step, so that an action is also learnt from its state alone
    action_weight: float = 1.0
    steps_per_episode: int = 0
    # every 10th episode of each task held out for the evidence, not every 10th episode: with
    # Meta-World's 10 training tasks in turn the plain rule held out all of coffee-button's
    # (docs/experiments.md, "Meta-World: a training task the model was never shown")
    holdout_per_task: bool = False
    # each training episode seen every epoch as a symmetric copy drawn from the domain's
    # (``Domain.symmetry``; CLEVR: colours permuted, the table mirrored): measured on CLEVR
    # (docs/experiments.md, "CLEVR: symmetric copies over 6 seeds"; on for CLEVR's demo recipes,
    # ``Recipe.train_levers``)
    symmetries: bool = False
    # AdamW's fused kernel: ATen's own vectorised arithmetic with a correctly rounded square
    # root, instead of the per-parameter step whose square root is MKL's vector math; under
    # portable numerics (MKL_CBWR=COMPATIBLE) that one's last bits depend on the hardware, which
    # made an Intel Xeon ground other checkpoints than AMD EPYCs (docs/reproducibility.md,
    # "The square root, found under an emulator"). On for the demo recipes of the domains whose
    # cards were rebuilt with it (``Recipe.train_levers``): it changes every checkpoint.
    fused_adam: bool = False

    @classmethod
    def for_domain(cls, domain, **fields) -> TrainSettings:
        """Settings with ``domain``'s ``grounding_levers`` switched on; a field given (not None)
        wins, so ``hide_unseen=False`` switches a domain's lever off."""
        levers = dict(lever if isinstance(lever, tuple) else (lever, True)
                      for lever in domain.grounding_levers)
        return cls(**{**levers, **{k: v for k, v in fields.items() if v is not None}})

    def learning_rate(self, backbone: str, lora: int) -> float:
        if self.lr is not None:
            return self.lr
        return 1e-3 if backbone == SCRATCH else (2e-4 if lora else 5e-5)

    def key(self) -> dict:
        """The settings that name a checkpoint (``checkpoints.checkpoint_dir``): every field, but
        the opt-in levers only when on, so checkpoints grounded before they existed keep their
        folder names, and none of ``RUN_ONLY``."""
        fields = asdict(self)
        return {k: v for k, v in fields.items()
                if k not in RUN_ONLY and (k not in OPT_IN or v != OPT_IN[k])}


OPT_IN = {"hide_history": False, "hide_unseen": False, "short_apart": False, "length_pool": 0,
          "length_split": 0, "action_bins": 0, "action_weight": 1.0, "steps_per_episode": 0,
          "holdout_per_task": False, "symmetries": False, "fused_adam": False}
# Fields that say how a batch is run, not what it trains: the same gradient up to the order of
# floating-point sums, like the number of processes, which the key does not count either
# (``training.json`` records them all).
RUN_ONLY = frozenset({"length_split"})
SHORT = 40  # positions: every dynamics-task sequence, and rollouts of a few steps only


def minimised(losses: dict[str, torch.Tensor], action_weight: float) -> torch.Tensor:
    """The sum the optimiser minimises: the three losses, the action loss ``action_weight``
    times (at 1, exactly their plain sum, so checkpoints grounded before the lever are as
    they were)."""
    if action_weight == 1.0:
        return sum(losses.values())
    return sum(value * action_weight if key == "action" else value for key, value in losses.items())


def epoch_batches(lengths: list[int], order: np.ndarray, batch_size: int, short_apart: bool,
                  rng: np.random.Generator, length_pool: int = 0) -> list[list[int]]:
    """The epoch's batches (indices into its sequences) in ``order``. Each batch is padded to its
    longest sequence, so with ``short_apart`` sequences of at most ``SHORT`` positions are
    batched only with each other (cheap batches), and with ``length_pool`` each run of
    ``length_pool`` batches' worth of ``order`` is sorted by length (ties kept in ``order``)
    before it is cut; either way the batches are then shuffled together. Only the last pool
    can be short, so pools make as many batches as without; ``short_apart`` can make one more
    (each of its two groups may end in a short batch)."""
    if length_pool:
        pool = length_pool * batch_size
        groups = [sorted(order[k : k + pool], key=lambda i: lengths[i]) for k in range(0, len(order), pool)]
    elif short_apart:
        groups = [[i for i in order if lengths[i] > SHORT], [i for i in order if lengths[i] <= SHORT]]
    else:
        return [list(order[k : k + batch_size]) for k in range(0, len(order), batch_size)]
    batches = [[int(i) for i in group[k : k + batch_size]] for group in groups
               for k in range(0, len(group), batch_size)]
    return [batches[k] for k in rng.permutation(len(batches))]


def length_parts(indices: list[int], lengths: list[int], parts: int) -> list[list[int]]:
    """``indices`` (one batch) as is for ``parts`` <= 1; else sorted by length (ties in batch
    order) and cut into ``parts`` runs of about equal count (fewer if the batch is smaller)."""
    if parts <= 1:
        return [indices]
    ordered = sorted(indices, key=lambda i: lengths[i])
    return [[int(i) for i in run] for run in np.array_split(ordered, min(parts, len(ordered)))]


def target_shares(parts: list[dict[str, torch.Tensor]]) -> list[dict[str, float] | None]:
    """Per collated part of one batch, each loss term's ``target_share`` of the batch's targets
    (as ``distributed`` weights a process's rows); [None] for a batch in one part, whose means
    are the batch's."""
    if len(parts) == 1:
        return [None]
    counts = [target_counts(part, slice(None)) for part in parts]
    total = {key: sum(c[key] for c in counts) for key in counts[0]}
    return [target_share(c, total) for c in counts]


def backward_parts(parts: list[dict[str, torch.Tensor]], losses_of, action_weight: float,
                   backward) -> dict[str, torch.Tensor]:
    """One batch's backward pass, part by part: ``backward`` of the ``minimised`` losses
    (``losses_of(part)``) of each collated part, weighted by its ``target_shares``, so the
    gradients add up to the batch's. Returns the batch's mean losses, detached."""
    losses = None
    for batch, share in zip(parts, target_shares(parts)):
        part = losses_of(batch)
        if share is not None:
            part = {key: value * share[key] for key, value in part.items()}
        backward(minimised(part, action_weight))
        part = {key: value.detach() for key, value in part.items()}
        losses = part if losses is None else {key: losses[key] + part[key] for key in part}
    return losses


def _size(parameter: torch.nn.Parameter) -> int:
    """Its number of weights (DeepSpeed ZeRO-3 leaves each process an empty placeholder)."""
    return int(getattr(parameter, "ds_numel", parameter.numel()))


def default_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


def unseen_columns(episodes) -> list[int]:
    """State columns that hold one value in every state of ``episodes``. Their weights in the
    state adapter never learn anything (centred, the column is 0 in every training input), so a
    novel scene that fills one (Meta-World's wall, hammer or ball slots) feeds the model a value
    thousands of training spreads from any it saw, through untrained weights."""
    states = np.concatenate([e.states for e in episodes])
    return [int(c) for c in np.flatnonzero(np.ptp(states, axis=0) == 0)]


def hidden_columns(domain, settings: TrainSettings, episodes) -> list[int]:
    """The columns the state adapter sees as their mean, by the settings' levers."""
    hidden = set(domain.history_columns) if settings.hide_history else set()
    if settings.hide_unseen:
        hidden |= set(unseen_columns(episodes))
    return sorted(hidden)


def normalisation(episodes) -> dict[str, list[float]]:
    """Mean/std of states and std of one-step changes, floored so no dimension divides by ~0."""
    states = np.concatenate([e.states for e in episodes]).astype(np.float64)
    deltas = np.concatenate([np.diff(e.states, axis=0) for e in episodes]).astype(np.float64)
    floor = 1e-3 * max(float(states.std()), 1e-6)
    return {"state_mean": states.mean(0).tolist(),
            "state_std": np.maximum(states.std(0), floor).tolist(),
            "delta_std": np.maximum(deltas.std(0), floor).tolist()}


class SentenceTable:
    """Sentence embeddings of instructions, encoded once (None without an encoder).

    ``add(texts)`` encodes a batch (training: the fixed set of training phrasings); calling
    the table with a text it has not seen encodes that text alone, so that a generated
    episode's embedding does not depend on which other instructions share its batch (padding
    changes the last digits, and greedy decoding can amplify them), nor on whether the same
    process encoded it in a batch before (a build that grounds its model first has encoded
    the training phrasings that prompt sub-goals, ``imagine.prompting``).
    """

    def __init__(self, encoder_name: str | None, texts: list[str] = ()):
        self.encoder = get_encoder(encoder_name) if encoder_name else None
        self.table: dict[str, np.ndarray] = {}
        self.add(texts)

    @property
    def dim(self) -> int:
        return int(self.encoder.dim) if self.encoder else 0

    def add(self, texts) -> None:
        new = [t for t in dict.fromkeys(texts) if t not in self.table]
        if self.encoder and new:
            self.table.update(zip(new, self.encoder.encode(new)))

    def __call__(self, text: str) -> np.ndarray | None:
        if self.encoder is None:
            return None
        if text not in self.table:
            self.table[text] = encode_each(self.encoder, [text])[0]
        return self.table[text]


@pinned()
def train_grounding(dataset_id: str, out_dir: Path, *, backbone: str = SCRATCH, lora: int = 0,
                    sentence_encoder: str | None = "minilm", settings: TrainSettings | None = None,
                    device: str | None = None, progress: bool = True, for_evidence: bool = False) -> str:
    """Train a grounded model on real dataset ``dataset_id``; save it to ``out_dir``; return its hash.

    Every 10th episode (of each task, with ``settings.holdout_per_task``) is held out (see
    ``data.split``) for the evidence; ``for_evidence`` refuses, before training, a split that
    holds out none (``data.require_held_out``). Under ``accelerate launch`` with several processes it
    trains data parallel (see ``distributed.py``), each process on its share of every batch of
    ``settings.batch_size``, on its own device.
    """
    settings = settings or TrainSettings()
    parallel = data_parallel()
    device = parallel.device if parallel else torch_device(device or default_device())
    torch.manual_seed(settings.seed)
    rng = np.random.default_rng(settings.seed)
    domain = get_domain(DatasetId.parse(dataset_id).domain)
    if settings.action_bins and domain.discrete:  # before any data is read
        raise ValueError(f"--action-bins applies to continuous actions; {domain.name}'s are discrete")
    if parallel and settings.length_split > 1:
        raise ValueError(f"--length-split runs on one process, found {parallel.processes}: launch one "
                         "process or leave it off")
    symmetry = domain.copies("--symmetries") if settings.symmetries else None
    episodes, checksum = read_episodes(dataset_id)
    train_eps, held_out = split(episodes, settings.holdout_per_task)
    if for_evidence:
        require_held_out(dataset_id, episodes, held_out, settings.holdout_per_task)
    phrasings, texts = training_phrasings(domain.name, train_eps, every_task=settings.symmetries)
    sentences = SentenceTable(sentence_encoder, texts)
    discrete = domain.discrete
    bounds = {"action_bins": settings.action_bins, "action_low": domain.action_space.low.tolist(),
              "action_high": domain.action_space.high.tolist()} if settings.action_bins else {}
    config = GroundingConfig(
        domain=domain.name, backbone=str(backbone), state_dim=int(domain.state_space.shape[0]),
        action_kind="discrete" if discrete else "continuous",
        action_dim=int(domain.action_space.n) if discrete else int(domain.action_space.shape[0]),
        sentence_encoder=sentence_encoder, sentence_dim=sentences.dim, lora=lora,
        train_dataset=dataset_id, train_checksum=checksum,
        hidden_columns=hidden_columns(domain, settings, train_eps),
        **bounds, **normalisation(train_eps))
    longest = max(t.horizon for level in LEVELS for t in domain.tasks(level))
    config.max_positions = max(config.max_positions, 2 * longest + 128)  # a whole rollout + prompt
    precision = resolve_precision(settings.precision, device, lora)
    lm, tokenizer = backbone_for(config, texts, precision.weights)
    model = GroundedLM(config, lm, tokenizer).to(device)
    factory = SequenceFactory(tokenizer, slot_token_id(tokenizer), config.state_dim,
                              tuple(domain.action_space.shape), domain.action_space.dtype, sentences)
    parameters = [p for p in model.parameters() if p.requires_grad]
    optimiser = torch.optim.AdamW(parameters, lr=settings.learning_rate(config.backbone, lora),
                                  weight_decay=settings.weight_decay, fused=settings.fused_adam or None)
    per_episode = 2 + settings.dynamics_per_episode + settings.steps_per_episode
    per_epoch = -(-len(train_eps) * per_episode // settings.batch_size)
    total = per_epoch * settings.epochs
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda step: min(1.0, (step + 1) / settings.warmup_steps) * max(0.0, 1 - step / total))
    history, started = [], time.perf_counter()
    wrapped = model
    if parallel:  # the schedule keeps stepping the optimiser underneath the wrapped one
        wrapped, optimiser = parallel.prepare(model, optimiser, settings.batch_size)
    bar = tqdm(total=total, desc=f"ground {config.backbone_name} on {dataset_id}", unit="batch",
               disable=not progress or (parallel is not None and parallel.rank != 0))
    sequences_seen = 0

    def losses_of(batch):
        with precision.autocast(device):
            return parallel.losses(wrapped, batch) if parallel else model.losses(batch)

    backward = parallel.backward if parallel else torch.Tensor.backward
    model.train()
    for epoch in range(settings.epochs):
        sequences = factory.epoch(train_eps, phrasings, rng, settings.dynamics_per_episode,
                                  settings.steps_per_episode, symmetry)
        order = rng.permutation(len(sequences))
        lengths = [len(seq) for seq in sequences]
        batches = epoch_batches(lengths, order, settings.batch_size, settings.short_apart, rng,
                                settings.length_pool)
        # With short_apart each group can end in a short batch, so an epoch may run one batch
        # more than per_epoch; the bar counts what runs. (The schedule and the epoch means keep
        # per_epoch: changing them would change every grounded checkpoint built so far.)
        bar.total += len(batches) - per_epoch
        bar.refresh()
        # Epoch means accumulate on the device (float64, as Python floats would): no host
        # synchronisation per step; the losses are read once an epoch.
        sums = {key: torch.zeros((), dtype=torch.float64, device=device)
                for key in ("state", "action", "text")}
        for indices in batches:
            parts = [collate([sequences[i] for i in part], tokenizer.pad_token_id, config.max_positions,
                             rng if model.jitter_positions else None, device)
                     for part in length_parts(indices, lengths, settings.length_split)]
            optimiser.zero_grad(set_to_none=True)
            losses = backward_parts(parts, losses_of, settings.action_weight, backward)
            sequences_seen += len(indices)
            if parallel:
                parallel.clip_grad_norm_(parameters, 1.0)
            else:
                torch.nn.utils.clip_grad_norm_(parameters, 1.0)
            optimiser.step()
            schedule.step()
            for key, value in losses.items():
                sums[key] += value.double() / per_epoch
            bar.update(1)
        means = {k: float(parallel.mean(v) if parallel else v) for k, v in sums.items()}
        bar.set_postfix({k: f"{v:.3f}" for k, v in means.items()}, refresh=False)
        history.append({"epoch": epoch + 1, **{k: round(v, 5) for k, v in means.items()}})
    bar.close()
    model.eval()
    training = {"dataset": dataset_id, "checksum": checksum, "episodes": len(train_eps),
                "held_out_episodes": len(held_out), "settings": asdict(settings), "device": str(device),
                "seconds": round(time.perf_counter() - started, 1), "history": history,
                "precision": precision.mode, "numerics": numerics_on(device), "sequences": sequences_seen,
                "parameters": sum(_size(p) for p in model.parameters()),
                "trainable_parameters": sum(_size(p) for p in parameters)}
    if not parallel:
        return save_checkpoint(model, Path(out_dir), training)
    training["processes"] = parallel.processes
    state = parallel.state_dict(wrapped)  # gathered from every process under ZeRO-3
    if parallel.rank == 0:
        save_checkpoint(model, Path(out_dir), training, state=state)
    parallel.finish()
    return checkpoint_hash(Path(out_dir))
