"""Offline RL from d3rlpy on our datasets, through the adapter: CQL (discrete or continuous
actions) and TD3+BC (continuous).

Data regimes mix their datasets in every batch with d3rlpy's ``MixedReplayBuffer`` (a
batch of 256 at 1:1 holds exactly 128 transitions of each); states are standardised with
the first (training) dataset's mean and std, as TD3+BC prescribes. d3rlpy lives in its own
environment (``.venv-d3rlpy``, see the README): it pins gymnasium 1.0.0, which metaworld
refuses, and runs unchanged on the gymnasium this package uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass, replace

import numpy as np

from ..adapters.d3rlpy import to_d3rlpy
from ..domains import get_domain
from ..loader.encoders import DEFAULT_ENCODER, get_encoder
from ..loader.transitions import load
from .policy import ConditionedPolicy

# name -> (config for discrete actions, config for continuous actions); None: not defined
ALGORITHMS = {
    "cql": ("DiscreteCQLConfig", "CQLConfig"),
    "td3+bc": (None, "TD3PlusBCConfig"),
}


# Where the package's defaults differ from d3rlpy's. d3rlpy's DiscreteCQL takes DQN's Atari
# settings, made for millions of steps: a learning rate of 6.25e-5, and the target network
# synced every 8,000 steps, so in a run of the demo budget (5,000 steps) it never moves.
# BC's learning rate and a sync every 500 steps took discrete CQL on the paper-scale training
# sets from 18.7 to 80.2% (BabyAI) and from 34.2 to 70.4% (CLEVR) (docs/results.md, 2026-11-27).
DEFAULTS = {"DiscreteCQLConfig": {"learning_rate": 1e-3, "target_update_interval": 500}}


@dataclass
class OfflineSettings:
    """``sample``: discrete actions only; the policy draws each action from the softmax of its
    Q-values (seeded by ``seed``) instead of taking d3rlpy's argmax. CQL's conservative term,
    ``logsumexp Q - Q(s, a_data)``, is the cross-entropy of exactly that softmax against the
    data's action, so it is the policy the term fits; BC samples its softmax the same way."""

    steps: int = 5000
    batch_size: int = 256
    seed: int = 0
    config: dict = field(default_factory=dict)  # d3rlpy config fields replacing its defaults
    sample: bool = False


def parse_config(pairs: list[str]) -> dict:
    """``["learning_rate=3e-4", "target_update_interval=500"]`` -> ``{"learning_rate": 0.0003,
    "target_update_interval": 500}``, for ``OfflineSettings.config``: each value an int, a
    float, true / false, None for none (``observation_scaler=none``: the states unscaled), a
    list of those when commas part them (``hidden_units=512,512``), or else the string as
    written."""
    config = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"a d3rlpy setting is KEY=VALUE, e.g. learning_rate=3e-4; got {pair!r}")
        config[key] = _value(text)
    return config


def _value(text: str):
    if "," in text:
        return [_value(part) for part in text.split(",")]
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if text.lower() == "none":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def make_config(config_class, settings: OfflineSettings, **fixed):
    """``config_class`` with ``fixed``, the batch size, the package's ``DEFAULTS`` and then
    ``settings.config``; a field d3rlpy does not have is named with the ones it has. A dotted
    key sets a field of a nested config: ``encoder_factory.dropout_rate=0.1`` replaces the
    dropout rate of the encoder factory and keeps its other fields. A nested config named by a
    string is d3rlpy's registered one of that name, with its defaults:
    ``encoder_factory=vector`` (then ``encoder_factory.hidden_units=512,512``)."""
    flat, nested = {}, {}
    for key, value in settings.config.items():
        head, dot, sub = key.partition(".")
        if dot:
            nested.setdefault(head, {})[sub] = value
        else:
            flat[key] = value
    _check_fields(config_class, {*flat, *nested})
    flat = {key: _named_config(config_class, key, value) if isinstance(value, str) else value
            for key, value in flat.items()}
    values = {"batch_size": settings.batch_size, **fixed, **DEFAULTS.get(config_class.__name__, {}), **flat}
    for head, changes in nested.items():
        base = values[head] if head in values else getattr(config_class(), head)
        if not is_dataclass(base):
            raise ValueError(f"{config_class.__name__}.{head} is {type(base).__name__}, which has no "
                             f"fields to set; got {', '.join(f'{head}.{sub}' for sub in changes)}")
        _check_fields(type(base), changes, prefix=f"{head}.")
        values[head] = replace(base, **changes)
    return config_class(**values)


def _named_config(config_class, name: str, kind: str):
    """d3rlpy's config registered as ``kind`` for the field ``name`` (``encoder_factory`` and
    ``vector`` -> ``VectorEncoderFactory()``); ``kind`` itself where the field takes no
    registered config."""
    from d3rlpy.serializable_config import CONFIG_STORAGE

    metadata = next(f for f in fields(config_class) if f.name == name).metadata
    decoder = metadata.get("dataclasses_json", {}).get("decoder")
    registry = next((r.config_list for r in CONFIG_STORAGE.values() if r.decoder is decoder), None)
    if registry is None:
        return kind
    if kind not in registry:
        raise ValueError(f"{config_class.__name__}.{name} is one of d3rlpy's {', '.join(sorted(registry))}; "
                         f"got {kind!r}")
    return registry[kind]()


def _check_fields(config_class, names, prefix: str = "") -> None:
    known = sorted(f.name for f in fields(config_class))
    unknown = ", ".join(prefix + name for name in sorted(set(names) - set(known)))
    if unknown:
        raise ValueError(f"{config_class.__name__} has no field {unknown}; its fields: {', '.join(known)}")


def import_d3rlpy():
    try:
        import d3rlpy
    except ImportError as error:
        raise ImportError("d3rlpy is not installed in this environment. It pins gymnasium 1.0.0, so it "
                          "has its own: `make .venv-d3rlpy/.installed`, then run "
                          "`.venv-d3rlpy/bin/imaginebench evaluate --algo ...` (see the README)") from error
    return d3rlpy


def config_name(algo: str, domain: str) -> str | None:
    """The name of ``algo``'s d3rlpy config class for ``domain``'s action space (None: it has none)."""
    if algo not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algo!r}; expected bc or one of {', '.join(ALGORITHMS)}")
    return ALGORITHMS[algo][0 if get_domain(domain).discrete else 1]


def algorithm_config(algo: str, domain: str):
    """The d3rlpy config class of ``algo`` for ``domain``'s action space, or a clear error."""
    name, spec = config_name(algo, domain), get_domain(domain)
    if name is None:
        raise ValueError(f"{algo} needs continuous actions; {domain} has {spec.action_space}")
    return getattr(import_d3rlpy().algos, name), spec.discrete


def changed_settings(algo: str, domain: str, config: dict) -> dict:
    """The settings of a run of ``algo`` on ``domain`` that are not d3rlpy's defaults: the
    package's ``DEFAULTS``, then ``config`` (for the results' notes)."""
    return {**DEFAULTS.get(config_name(algo, domain), {}), **config}


def mix(datasets: list, ratios: list[float]):
    """One d3rlpy dataset as it is, or two mixed in every batch by ``ratios``."""
    if not 1 <= len(datasets) == len(ratios) <= 2:
        raise ValueError(f"a regime mixes one or two datasets with one ratio each, got {len(datasets)} "
                         f"datasets and ratios {ratios}")
    if len(datasets) == 1:
        return datasets[0]
    return import_d3rlpy().dataset.MixedReplayBuffer(datasets[0], datasets[1],
                                                     secondary_mix_ratio=ratios[1] / sum(ratios))


def quiet_d3rlpy() -> None:
    """d3rlpy logs every epoch through structlog at info level; keep warnings and errors only
    (structlog's configuration is process-wide)."""
    import logging

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))


def train_offline(algo: str, datasets: dict[str, float], settings: OfflineSettings | None = None,
                  encoder=DEFAULT_ENCODER, verbose: bool = False) -> tuple[ConditionedPolicy, list[float]]:
    """Train d3rlpy's ``algo`` on ``datasets`` (dataset id -> batch share); return the policy and
    its main loss (critic loss, or the loss for discrete CQL) at the end of every 100 steps.
    ``verbose=False`` silences d3rlpy's per-epoch log lines (``quiet_d3rlpy``)."""
    d3rlpy = import_d3rlpy()
    if not verbose:
        quiet_d3rlpy()
    settings = settings or OfflineSettings()
    domain = load(next(iter(datasets))).card.domain
    config_class, discrete = algorithm_config(algo, domain)
    if settings.sample and not discrete:
        raise ValueError(f"sampling from the softmax of Q applies to discrete actions; {domain}'s are "
                         "continuous")
    encoder = get_encoder(encoder)
    converted = [to_d3rlpy(load(dataset_id), encoder=encoder) for dataset_id in datasets]
    buffer = mix(converted, list(datasets.values()))
    observations = np.concatenate([episode.observations for episode in converted[0].episodes])
    # d3rlpy's scaler adds its own eps (1e-3) to this: it divides by the spread + 2e-3
    scaler = d3rlpy.preprocessing.StandardObservationScaler(
        mean=observations.mean(0), std=observations.std(0) + 1e-3)
    d3rlpy.seed(settings.seed)
    algorithm = make_config(config_class, settings, observation_scaler=scaler).create(device="cpu:0")
    # built from the first dataset: d3rlpy's fitter would sample one transition of the mixed
    # buffer to size the networks, which MixedReplayBuffer does not support; a scaler named in
    # the settings (--d3rlpy action_scaler=min_max) is fitted on it too, as the states' is
    d3rlpy.algos.utility.build_scalers_with_transition_picker(algorithm, converted[0])
    algorithm.build_with_dataset(converted[0])
    losses = []
    # d3rlpy's fitter runs n_steps // n_steps_per_epoch epochs: an epoch length that divides the
    # steps, so that all of them run (min(100, steps) made --steps 250 train 200; found 2026-12-07)
    per_epoch = max(n for n in range(1, min(100, settings.steps) + 1) if settings.steps % n == 0)
    for _, metrics in algorithm.fitter(buffer, n_steps=settings.steps, n_steps_per_epoch=per_epoch,
                                       show_progress=False, save_interval=10**9,
                                       logger_adapter=d3rlpy.logging.NoopAdapterFactory()):
        losses.append(float(metrics.get("critic_loss", metrics.get("loss", np.nan))))
    if not settings.sample:
        return ConditionedPolicy(algorithm.predict, encoder, discrete), losses
    act, rewind = softmax_of_q(algorithm, settings.seed)
    return ConditionedPolicy(act, encoder, discrete, rewind=rewind), losses


def softmax_of_q(algorithm, seed: int):
    """``(act, rewind)``: ``act(rows)`` draws for each row one action from the softmax of its
    Q-values; ``rewind()`` puts the draws back to ``seed``'s start."""
    n_actions = algorithm.action_size
    draws = np.random.default_rng(seed)
    start = draws.bit_generator.state

    def rewind() -> None:
        draws.bit_generator.state = start

    def act(rows: np.ndarray) -> np.ndarray:
        q = algorithm.predict_value(np.repeat(rows, n_actions, 0), np.tile(np.arange(n_actions), len(rows)))
        q = q.reshape(len(rows), n_actions).astype(np.float64)
        p = np.exp(q - q.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        return np.array([draws.choice(n_actions, p=row) for row in p])

    return act, rewind
