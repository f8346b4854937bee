"""The next-state error of a checkpoint on the held-out transitions (the evidence's)."""

import sys

import torch

from imaginebench_data.domains import get_domain
from imaginebench_data.imagine.checkpoint import load_checkpoint
from imaginebench_data.imagine.data import read_episodes, split
from imaginebench_data.imagine.evidence import next_state_evidence

torch.set_num_threads(1)
_, held = split(read_episodes("imaginebench/halfcheetah-train-real-v0")[0])
print(next_state_evidence(load_checkpoint(sys.argv[1]), get_domain("halfcheetah"), held))
