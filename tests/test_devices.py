"""A device the caller names is checked once, in one line, before anything is put on it."""

import re

import pytest
import torch
from test_sampler import make_transitions

from imaginebench_data.core.devices import torch_device
from imaginebench_data.loader.encoders import HFEncoder
from imaginebench_data.loader.sampler import Sampler

NO_CUDA = not torch.cuda.is_available()


def test_known_devices_come_back_as_torch_devices():
    assert torch_device("cpu") == torch.device("cpu")
    assert torch_device(torch.device("cpu")) is not None


@pytest.mark.parametrize("device", ["gpu", "cuda:x", 3.5])
def test_a_name_torch_does_not_know_is_one_line(device):
    with pytest.raises(ValueError, match=r"expected a torch device such as 'cpu'") as error:
        torch_device(device)
    assert "\n" not in str(error.value)


@pytest.mark.skipif(not NO_CUDA, reason="this machine has CUDA")
def test_cuda_without_cuda_names_the_torch_build(tmp_path):
    version = re.escape(torch.__version__)
    with pytest.raises(ValueError, match=rf"device .cuda.: this torch \({version}.*no CUDA device"):
        torch_device("cuda")
    sampler = Sampler({make_transitions("real", 30): 1.0}, encoder=None)
    assert sampler.sample(4, device="cpu")["observations"].shape == (4, 3)
    with pytest.raises(ValueError, match="no CUDA device"):
        sampler.sample(4, device="cuda:0")
    (tmp_path / "config.json").write_text('{"hidden_size": 8}')  # enough for an encoder's folder
    assert HFEncoder(tmp_path, device="cpu").dim == 8
    with pytest.raises(ValueError, match="no CUDA device"):
        HFEncoder(tmp_path, device="cuda")


@pytest.mark.skipif(NO_CUDA, reason="needs CUDA")
def test_a_cuda_index_past_the_last_device_is_refused():
    with pytest.raises(ValueError, match="CUDA device"):
        torch_device(f"cuda:{torch.cuda.device_count()}")
