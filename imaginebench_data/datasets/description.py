"""What ``minari show`` prints for a dataset: its recipe's description, then what its card measured."""

from __future__ import annotations

from ..cards.card import Card


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _made_by(card: Card) -> str:
    """How the dataset was made here: its recipe's build, or an import of the original files."""
    if "original_file" in card.provenance:  # the importer names the original file it read
        return "Imported locally by `imaginebench import` from the original release's files"
    return f"Built locally by `imaginebench build {card.id}`"


def describe(description: str, card: Card, references: dict[str, float | int]) -> str:
    """``description`` followed by the card's counts and quality, the reference scores and
    how to load the data (all of it stored in the dataset's metadata)."""
    return "\n\n".join([
        description.rstrip("."),
        f"{card.episodes} episodes, {card.steps} steps, {card.tasks} tasks, {card.phrasings} phrasings "
        f"({card.scale} scale). Checked by imaginebench-data: goal consistency "
        f"{_pct(card.goal_consistency)}, "
        f"illegal states {_pct(card.illegal_state_rate)}, transitions beyond tolerance "
        f"{_pct(card.transition_error_rate)}; per-step flags in infos['success', 'legal', 'transition_ok'].",
        f"Reference scores (mean return over {references['num_episodes_average_score']} episodes of the "
        f"level's eval env): random actions {references['ref_min_score']:.3f}, the expert "
        f"{references['ref_max_score']:.3f}; minari.get_normalized_score uses them.",
        f"Load: minari.load_dataset('{card.id}'), or imaginebench_data.load('{card.id}') for flat "
        f"transitions. {_made_by(card)}; no remote server holds it. "
        f"Checksum {card.checksum[:16]}.",
    ])
