"""A tiny real build, held to the floor every real dataset must meet: one way for every domain."""

import contextlib

import numpy as np
import pytest

from imaginebench_data.cards.card import Card
from imaginebench_data.pipeline.build import build


def tiny_real_build(dataset_id: str, episodes: int, tmp_path) -> dict:
    """Build ``episodes`` episodes of real ``dataset_id`` (cards under ``tmp_path/cards``) and
    check the card: that many episodes, every goal reached, no illegal state, no transition
    error. Returns the card."""
    card = build(dataset_id, episodes=episodes, workers=1, cards_dir=tmp_path / "cards", progress=False).card
    assert card.episodes == episodes
    assert card.goal_consistency == 1.0
    assert card.transition_error_rate == 0.0 and card.illegal_state_rate == 0.0
    return card


def toy_card(dataset_id: str, checksum: str = "a" * 64, domain: str = "clevr") -> dict:
    """The JSON of a card whose figures do not matter (for datasets a test writes by hand with
    Minari): the readers need its domain, for dtypes, and its checksum, for caching."""
    parts = dataset_id.split("/")[1].split("-")
    return Card(id=dataset_id, domain=domain, level=parts[1], source=parts[2], scale="test", episodes=0,
                steps=0, tasks=0, phrasings=0, goal_consistency=0.0, transition_error_rate=0.0,
                illegal_state_rate=0.0, illegal_by_kind={}, length={}, returns={}, per_task={},
                provenance={}, checksum=checksum).to_json()


def toy_card_of(dataset, dataset_id: str, domain: str = "clevr") -> dict:
    """``toy_card`` with the checksum the arrays of the Minari ``dataset`` really hash to."""
    from imaginebench_data.datasets.checksum import DatasetChecksum
    from imaginebench_data.datasets.read import stored_episodes
    from imaginebench_data.domains import get_domain

    checksum = DatasetChecksum()
    for episode in stored_episodes(dataset, get_domain(domain)):
        checksum.update(episode)
    return toy_card(dataset_id, checksum.hexdigest(), domain)


class TextIds:
    """A fake encoder: each distinct text gets its own number, so a row names its instruction."""

    name, dim = "text-ids", 1

    def __init__(self):
        self.ids: dict[str, int] = {}

    def encode(self, texts):
        import numpy as np

        return np.array([[self.ids.setdefault(t, len(self.ids))] for t in texts], np.float32)


@contextlib.contextmanager
def built_root(tmp_path_factory, dataset_id: str, episodes: int):
    """A fresh Minari root holding ``episodes`` episodes of ``dataset_id``, with
    ``MINARI_DATASETS_PATH`` pointing at it while the context is open (module-scoped fixtures)."""
    root = tmp_path_factory.mktemp("minari")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MINARI_DATASETS_PATH", str(root))
        build(dataset_id, episodes=episodes, workers=1, cards_dir=root / "cards", progress=False)
        yield root


class Lengths:
    """A fake encoder whose embedding of a text is (its length, 1): easy to check by hand."""

    name, dim = "lengths", 2

    def encode(self, texts):
        return np.array([[len(t), 1.0] for t in texts], np.float32)
