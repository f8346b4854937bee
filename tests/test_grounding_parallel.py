"""Grounding on two CPU processes (``accelerate launch``, gloo) equals grounding on one, and the
shipped DeepSpeed ZeRO-3 config is one accelerate reads."""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from safetensors.torch import load_file
from test_imagine_train import TRAIN, save_tiny_llama
from tiny import built_root

from imaginebench_data.imagine.checkpoints import checkpoint_provenance
from imaginebench_data.imagine.train import TrainSettings, train_grounding

pytest.importorskip("accelerate")

# The two runs differ only in the order of floating-point sums (each process sums its rows,
# then the gradients are averaged): measured 4e-7 at most on any weight after 12 steps at a
# peak learning rate of 1e-2, while training moves the weights by ~1e-2.
WEIGHT_TOLERANCE = 1e-5
SETTINGS = dict(epochs=2, batch_size=12, lr=1e-2)
CONFIGS = Path(__file__).parent.parent / "imaginebench_data" / "imagine" / "configs"


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    with built_root(tmp_path_factory, TRAIN, 20) as root:
        yield root


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def weights(checkpoint: Path) -> dict:
    return {**load_file(str(checkpoint / "heads.safetensors")),
            **load_file(str(checkpoint / "backbone" / "model.safetensors"))}


def test_two_processes_ground_the_model_one_process_grounds(real, tmp_path, monkeypatch):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(real))
    llama = save_tiny_llama(tmp_path / "tiny-llama")
    # CLEVR's demo builds ground on symmetric copies with the fused AdamW, each batch in 2 parts:
    # the command keeps the copies and the fused step and leaves the parts, a one-process lever
    # of the same gradient, off on 2 processes
    train_grounding(TRAIN, tmp_path / "one", backbone=str(llama), sentence_encoder=None,
                    settings=TrainSettings(**SETTINGS, symmetries=True, fused_adam=True), progress=False)
    # As a user runs it: the ground command, 2 processes, the same global batch of 12 (6 each).
    env = {**os.environ, "IMAGINEBENCH_MODELS": str(tmp_path / "models"), "OMP_NUM_THREADS": "1"}
    command = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", "2",
               "--num_machines", "1", "--mixed_precision", "no", "--dynamo_backend", "no",
               "--main_process_port", str(free_port()), "-m", "imaginebench_data.cli", "ground", TRAIN,
               "--backbone", str(llama), "--epochs", "2", "--batch-size", "12", "--lr", "0.01"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.count("checkpoint ") == 1  # the main process alone reports
    [two] = list((tmp_path / "models").iterdir())
    training = checkpoint_provenance(two)["training"]
    assert training["processes"] == 2 and training["batch_size"] == 12
    assert checkpoint_provenance(two)["training_levers"] == {"symmetries": True, "fused_adam": True}
    history = [json.loads((p / "training.json").read_text())["history"] for p in (tmp_path / "one", two)]
    for a, b in zip(*history, strict=True):
        assert a == pytest.approx(b, abs=1e-4)  # epoch mean losses, stored to 5 decimals
    one, both, start = weights(tmp_path / "one"), weights(two), load_file(str(llama / "model.safetensors"))
    assert one.keys() == both.keys()
    moved = max(float((one[k] - start[k]).abs().max()) for k in start)
    worst = max(float((one[k] - both[k]).abs().max()) for k in one)
    assert moved > 1e-3 and worst < WEIGHT_TOLERANCE, (moved, worst)


def test_the_zero3_config_is_one_accelerate_reads():
    """accelerate reads both files without DeepSpeed installed (it needs it only to train)."""
    from accelerate.commands.config.config_args import load_config_from_file
    from accelerate.utils import DeepSpeedPlugin
    from transformers.integrations import unset_hf_deepspeed_config

    config = load_config_from_file(str(CONFIGS / "zero3.yaml"))
    assert config.distributed_type == "DEEPSPEED" and config.num_processes == 4
    named = Path(config.deepspeed_config["deepspeed_config_file"])
    assert named == Path("imaginebench_data/imagine/configs/zero3.json")  # from the checkout's root
    plugin = DeepSpeedPlugin(hf_ds_config=str(CONFIGS.parent.parent.parent / named), zero3_init_flag=True)
    try:
        assert plugin.zero_stage == 3 and plugin.hf_ds_config.is_zero3()
        assert plugin.get_value("gradient_clipping") == 1.0 and plugin.get_value("bf16.enabled") is True
        assert plugin.is_auto("train_micro_batch_size_per_gpu")  # set by the trainer (no dataloader)
    finally:
        del plugin
        unset_hf_deepspeed_config()  # the plugin told transformers to load under ZeRO-3
