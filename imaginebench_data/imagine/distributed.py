"""Grounding on several processes: data parallel under ``accelerate launch`` (DDP, or DeepSpeed).

Started by ``accelerate launch --num_processes N ...`` (``WORLD_SIZE`` > 1), the trainer makes
one ``accelerate.Accelerator``. Every process builds the same epoch and collates the same
global batch of ``batch_size`` sequences (so the random streams stay those of a single
process), then computes the losses of its own rows only: rows ``rank::N``. Each loss term is
weighted by the share of the batch's targets of that term the process holds, times N, so the
gradients the processes average are the gradient of the global batch's mean loss: the same
optimisation as one process with that batch, up to the order of floating-point sums. The
learning-rate schedule steps once per global batch, as on one process.

On CPUs the processes talk over gloo (``accelerate launch --cpu``); on GPUs over NCCL, or
through DeepSpeed ZeRO-3 (``configs/zero3.yaml``), which partitions the weights over the GPUs.
Only the main process saves the checkpoint, measures the evidence and prints.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import torch

from .sequences import IGNORE


def launched_processes() -> int:
    """How many processes ``accelerate launch`` (or ``torchrun``) started; 1 otherwise."""
    return int(os.environ.get("WORLD_SIZE", "1"))


def is_main_process() -> bool:
    return int(os.environ.get("RANK", "0")) == 0


def target_counts(batch: dict[str, torch.Tensor], rows: torch.Tensor | slice) -> dict[str, torch.Tensor]:
    """How many targets of each loss term ``rows`` of ``batch`` hold (what each term averages over)."""
    return {"state": batch["state_mask"][rows].sum(), "action": batch["action_mask"][rows].sum(),
            "text": (batch["labels"][rows] != IGNORE).sum()}


def target_share(part: dict[str, torch.Tensor], whole: dict[str, torch.Tensor]) -> dict[str, float]:
    """Per loss term, the share of ``whole``'s targets (``target_counts``) that ``part`` holds: a
    part's mean loss times its share is its contribution to the whole's mean."""
    return {key: float(part[key]) / max(float(whole[key]), 1.0) for key in part}


@dataclass
class DataParallel:
    accelerator: Any  # accelerate.Accelerator

    @property
    def rank(self) -> int:
        return self.accelerator.process_index

    @property
    def processes(self) -> int:
        return self.accelerator.num_processes

    @property
    def device(self) -> torch.device:
        return self.accelerator.device

    @property
    def deepspeed(self) -> bool:
        return self.accelerator.distributed_type == "DEEPSPEED"

    def prepare(self, model: torch.nn.Module, optimiser: torch.optim.Optimizer, batch_size: int):
        """(wrapped model, wrapped optimiser); ``batch_size`` is the global batch."""
        if batch_size % self.processes:
            raise ValueError(f"--batch-size {batch_size} does not split evenly over {self.processes} "
                             "processes: pass a multiple of the process count")
        if self.deepspeed:  # no dataloader to infer it from
            config = self.accelerator.state.deepspeed_plugin.deepspeed_config
            config["train_micro_batch_size_per_gpu"] = batch_size // self.processes
            config["train_batch_size"] = batch_size
        return self.accelerator.prepare(model, optimiser)

    def losses(self, model, batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        """This process's share of the global batch's three mean losses (see the module's docstring).

        A process whose share holds no rows (a last batch smaller than the process count) runs
        one row at weight 0, so every process runs a backward pass for the collective to finish.
        """
        rows = torch.arange(self.rank, len(batch["ids"]), self.processes)
        mine = target_counts(batch, rows)
        if not len(rows):
            rows = torch.arange(1)  # counted as none of its targets: weight 0
        total = target_counts(batch, slice(None))
        own = {key: value[rows.to(value.device)] for key, value in batch.items()}
        losses, share = model(own), target_share(mine, total)
        return {key: loss * (share[key] * self.processes) for key, loss in losses.items()}

    def backward(self, loss: torch.Tensor) -> None:
        self.accelerator.backward(loss)

    def clip_grad_norm_(self, parameters, max_norm: float) -> None:
        self.accelerator.clip_grad_norm_(parameters, max_norm)  # DeepSpeed clips by its config

    def mean(self, value: torch.Tensor) -> torch.Tensor:
        """The sum over processes of a per-process share (of a loss), i.e. the global figure."""
        return self.accelerator.reduce(value, reduction="sum") / self.processes

    def state_dict(self, model) -> dict[str, torch.Tensor] | None:
        """The full weights to save (gathered from every process: all must call this) under
        DeepSpeed ZeRO-3; None elsewhere (the main process's model holds them all)."""
        return self.accelerator.get_state_dict(model) if self.deepspeed else None

    def finish(self) -> None:
        """Wait for every process (the checkpoint is written); after ZeRO-3, stop transformers
        from partitioning the models loaded next (the main process's evidence loads the
        checkpoint alone)."""
        self.accelerator.wait_for_everyone()
        if self.deepspeed:
            from transformers.integrations import unset_hf_deepspeed_config

            unset_hf_deepspeed_config()


def data_parallel() -> DataParallel | None:
    """A ``DataParallel`` when started by ``accelerate launch`` with several processes; else None
    (the single-process path, unchanged). Made before the backbone is loaded, so that under
    ZeRO-3 ``from_pretrained`` partitions the weights as it reads them."""
    if launched_processes() <= 1:
        return None
    from accelerate import Accelerator
    from accelerate.utils import DistributedDataParallelKwargs

    # Some processes' rows may have no target of a head (no text, say) in a step: its weights
    # then get no gradient there, which DDP must be told to expect.
    unused = DistributedDataParallelKwargs(find_unused_parameters=True)
    # Without a GPU, the processes `accelerate launch --multi_gpu` starts train on CPUs (gloo);
    # accelerate's own --cpu flag starts one process only (several need MPI).
    return DataParallel(Accelerator(cpu=not torch.cuda.is_available(), kwargs_handlers=[unused]))
