"""Grounding throughput and GPU utilisation of the ``--backbone PATH`` path, in one run.

Builds a randomly initialised Llama-architecture backbone (a BPE tokenizer trained on the
domain's phrasings; 134M parameters with the defaults, 162.5M with this package's heads, see
results/gpu/README.md), builds the real training set if it is missing, grounds the model on it
for ``--epochs`` epochs in each ``--precision`` mode, and prints, per mode: seconds, training sequences per
second, the mean GPU utilisation sampled every 0.1 s by NVML, peak GPU memory, the final
losses and the share of backbone weights the training changed. Asserts nothing.

Usage (GPU machine): python benchmarks/gpu_grounding.py --precision bf16-mixed fp32 [--lora 0]
On a CPU it runs with a tiny backbone (--hidden 64 --layers 2) for a smoke test.
Measured on an H200 (2026-11-28): results/gpu/README.md.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
from pathlib import Path

import torch


def llama_backbone(path: Path, texts: list[str], hidden: int, layers: int) -> Path:
    """A random-weight Llama model directory with a BPE tokenizer trained on ``texts``."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE(unk_token="<unk>"))
    bpe.pre_tokenizer = pre_tokenizers.Whitespace()
    bpe.train_from_iterator(texts * 4, trainers.BpeTrainer(vocab_size=2000, special_tokens=[
        "<unk>", "<s>", "</s>", "<pad>"]))
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, unk_token="<unk>", bos_token="<s>",
                                        eos_token="</s>", pad_token="<pad>")
    config = LlamaConfig(vocab_size=32000, hidden_size=hidden, intermediate_size=4 * hidden,
                         num_hidden_layers=layers, num_attention_heads=max(1, hidden // 64),
                         max_position_embeddings=512, bos_token_id=1, eos_token_id=2, pad_token_id=3)
    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


class Utilisation:
    """Samples GPU utilisation (NVML) every ``period`` seconds on a thread while in use."""

    def __init__(self, period: float = 0.1) -> None:
        self.period, self.samples, self._stop = period, [], threading.Event()

    def __enter__(self) -> Utilisation:
        try:
            import pynvml

            pynvml.nvmlInit()
            handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        except Exception:  # no NVML (a CPU machine): nothing to sample
            return self

        def sample() -> None:
            while not self._stop.wait(self.period):
                self.samples.append(pynvml.nvmlDeviceGetUtilizationRates(handle).gpu)

        self._thread = threading.Thread(target=sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()

    @property
    def mean(self) -> float | None:
        return sum(self.samples) / len(self.samples) if self.samples else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="imaginebench/clevr-train-real-v0")
    parser.add_argument("--episodes", type=int, default=800)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--hidden", type=int, default=768)
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--lora", type=int, default=0)
    parser.add_argument("--batch-size", type=int, default=None, help="default: the trainer's choice")
    parser.add_argument("--precision", nargs="+", default=["auto"])
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--out", type=Path, default=None, help="also write the results as JSON here")
    args = parser.parse_args()

    from imaginebench_data.datasets.ids import DatasetId
    from imaginebench_data.datasets.read import DatasetNotFoundError, read_card
    from imaginebench_data.domains import get_domain
    from imaginebench_data.imagine.train import TrainSettings, train_grounding
    from imaginebench_data.pipeline.build import build

    dataset = DatasetId.parse(args.dataset)
    try:
        read_card(dataset)
    except DatasetNotFoundError:
        build(dataset, episodes=args.episodes, workers=args.workers, cards_dir=Path(tempfile.mkdtemp()),
              progress=False)
    domain = get_domain(dataset.domain)
    tasks = [t for level in ("train", "rephrase", "easy", "hard") for t in domain.tasks(level)]
    scratch = Path(tempfile.mkdtemp())
    backbone = llama_backbone(scratch / "llama", [p for t in tasks for p in t.phrasings], args.hidden,
                              args.layers)
    results = []
    for precision in args.precision:
        settings = TrainSettings(epochs=args.epochs)
        if hasattr(settings, "precision"):  # (a package from before the precision modes has none)
            settings.precision = precision
        if args.batch_size:
            settings.batch_size = args.batch_size
        if torch.cuda.is_available():
            torch.cuda.reset_peak_memory_stats()
        out = scratch / f"model-{precision}"
        with Utilisation() as gpu:
            train_grounding(str(dataset), out, backbone=str(backbone), lora=args.lora, sentence_encoder=None,
                            settings=settings, progress=False)
        training = json.loads((out / "training.json").read_text())
        results.append({
            "precision": precision, "resolved": training.get("precision", "bf16 weights on a GPU (before)"),
            "device": training["device"], "batch_size": training["settings"]["batch_size"],
            "train_seconds": training["seconds"],
            "sequences_per_second": round(sequences(training) / max(training["seconds"], 1e-9), 1),
            "gpu_utilisation_mean": gpu.mean,
            "peak_gpu_mib": round(torch.cuda.max_memory_allocated() / 2**20) if gpu.samples else 0,
            "final_losses": training["history"][-1], "parameters": training["parameters"],
            "trainable": training["trainable_parameters"],
            "changed_weight_share": None if args.lora else changed_share(backbone, out / "backbone"),
        })
        print(json.dumps(results[-1]), flush=True)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))


def sequences(training: dict) -> int:
    """Training sequences seen: recorded, or (before it was) 2 + dynamics per episode per epoch."""
    settings = training["settings"]
    return training.get("sequences") or (training["episodes"] * (2 + settings["dynamics_per_episode"])
                                         * settings["epochs"])


def changed_share(before: Path, after: Path) -> float:
    """The share of the backbone's weights (elements) that training changed at all."""
    from safetensors.torch import load_file

    initial = load_file(str(before / "model.safetensors"))
    trained = load_file(str(after / "model.safetensors"))
    changed = total = 0
    for name, weights in initial.items():
        if name in trained:
            changed += int((trained[name].float() != weights.float()).sum())
            total += weights.numel()
    return round(changed / max(total, 1), 4)


if __name__ == "__main__":
    main()
