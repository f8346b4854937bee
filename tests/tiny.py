"""A tiny real build, held to the floor every real dataset must meet: one way for every domain."""

from imaginebench_data.build.pipeline import build


def tiny_real_build(dataset_id: str, episodes: int, tmp_path) -> dict:
    """Build ``episodes`` episodes of real ``dataset_id`` (cards under ``tmp_path/cards``) and
    check the card: that many episodes, every goal reached, no illegal state, no transition
    error. Returns the card."""
    card = build(dataset_id, episodes=episodes, workers=1, cards_dir=tmp_path / "cards", progress=False).card
    assert card["episodes"] == episodes
    assert card["goal_consistency"] == 1.0
    assert card["transition_error_rate"] == 0.0 and card["illegal_state_rate"] == 0.0
    return card
