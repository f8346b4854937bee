"""DatasetId is parsed once, strictly; Card round-trips through JSON and refuses what it cannot read."""

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from imaginebench_data.cards.card import SCHEMA_VERSION, Card, CardError
from imaginebench_data.datasets.ids import DatasetId, DatasetIdError


def test_a_well_formed_id_parses_into_its_parts():
    parsed = DatasetId.parse("imaginebench/clevr-hard-imaginary-v12")
    assert (parsed.namespace, parsed.domain, parsed.level, parsed.source, parsed.version) == (
        "imaginebench", "clevr", "hard", "imaginary", 12)
    assert str(parsed) == "imaginebench/clevr-hard-imaginary-v12"
    assert parsed.name == "clevr-hard-imaginary-v12"
    assert DatasetId.parse(parsed) is parsed  # parsed once: a DatasetId passes through
    assert parsed.with_(source="real", level="train") == DatasetId.parse("imaginebench/clevr-train-real-v12")
    assert DatasetId.parse("imaginebench-original/babyai-easy-real-v0").namespace == "imaginebench-original"


@pytest.mark.parametrize("text", [
    "imaginebench/clevr-train-real-v00",          # leading zero
    "imaginebench/clevr-train-real-v01",
    "imaginebench/clevr-train-real-v\u0660",      # an Arabic-Indic zero is a digit to \d, not to us
    "imaginebench/clevr-train-real-v\uff11",      # a full-width one
    "imaginebench/clevr-train-real-v0\n",         # a trailing newline ($ would accept it)
    " imaginebench/clevr-train-real-v0",
    "imaginebench/clevr-train-real-v0 ",
    "imaginebench/clevr-train-real",
    "imaginebench/clevr-medium-real-v0",          # no such level
    "imaginebench/clevr-train-synthetic-v0",       # no such source (yet)
    "imaginebench/Clevr-train-real-v0",           # domains are lower case
    "imaginebench/cl\u00e9vr-train-real-v0",
    "i/clevr-train-real-v0",                      # a one-letter namespace
    "clevr-train-real-v0",
    "",
])
def test_malformed_ids_are_refused_naming_what_was_given(text):
    with pytest.raises(DatasetIdError) as error:
        DatasetId.parse(text)
    assert repr(text) in str(error.value) and "expected '<namespace>/<domain>-<level>-<source>-v<N>'" in str(
        error.value)


def test_non_strings_are_refused():
    expected = "a dataset id is a string such as 'imaginebench/clevr-train-real-v0'; got int 7"
    with pytest.raises(DatasetIdError, match=expected):
        DatasetId.parse(7)
    with pytest.raises(DatasetIdError, match=r"got list \['imaginebench/clevr-train-real-v0'\]"):
        DatasetId.parse(["imaginebench/clevr-train-real-v0"])


def card(**changes) -> Card:
    fields = dict(id="imaginebench/clevr-easy-real-v0", domain="clevr", level="easy", source="real",
                  scale="demo", episodes=2, steps=2, tasks=1, phrasings=1, goal_consistency=0.5,
                  transition_error_rate=0.0, illegal_state_rate=0.25, illegal_by_kind={"overlap": 0.25},
                  length={"mean": 1.0},
                  returns={"mean": 0.5}, per_task={"push": {"episodes": 2}}, provenance={"seed": 3},
                  checksum="c" * 64, notes={"state": "xy"})
    return Card(**{**fields, **changes})


def test_a_card_round_trips_through_json_with_its_schema_version():
    original = card()
    data = json.loads(original.dumps())
    assert list(data)[:2] == ["schema_version", "id"] and data["schema_version"] == SCHEMA_VERSION
    assert data["return"] == {"mean": 0.5} and "returns" not in data  # the documented JSON key
    assert Card.from_json(data) == original == Card.from_json(original.dumps())
    legacy = {k: v for k, v in data.items() if k != "schema_version"}  # cards written before version 1
    read = Card.from_json(legacy)
    assert read.schema_version == 0 and json.loads(read.dumps())["schema_version"] == 0  # kept, not upgraded
    assert replace(read, schema_version=SCHEMA_VERSION) == original
    assert original.dataset_id == DatasetId.parse("imaginebench/clevr-easy-real-v0")


@pytest.mark.parametrize("data, message", [
    ("{not json", "unparsable"),
    ("[1, 2]", "expected a JSON object, found list"),
    ({"schema_version": SCHEMA_VERSION + 1}, f"0..{SCHEMA_VERSION}, found {SCHEMA_VERSION + 1}"),
    ({"schema_version": "1"}, "found '1'"),
    ({"id": "x", "domain": "clevr"}, "expected keys"),
])
def test_unreadable_cards_say_what_was_expected_and_found(data, message):
    with pytest.raises(CardError, match="card.json") as error:
        Card.from_json(data, where="card.json")
    assert message in str(error.value)


@pytest.mark.parametrize("key, value, expected", [
    ("per_task", ["push"], "'per_task' to be an object of one object per task, found ['push']"),
    ("length", None, "'length' to be an object of numbers (or null), found None"),
    ("provenance", "built", "'provenance' to be an object, found 'built'"),
    ("goal_consistency", 7.5, "'goal_consistency' to be a rate in [0, 1] or null, found 7.5"),
    ("illegal_state_rate", float("nan"), "'illegal_state_rate' to be a rate in [0, 1], found nan"),
    ("episodes", True, "'episodes' to be a count (an integer >= 0), found True"),
    ("illegal_by_kind", {"overlap": "1%"}, "'illegal_by_kind' to be an object of rates in [0, 1]"),
    ("id", 7, "'id' to be a string, found 7"),
])
def test_a_stored_card_of_the_wrong_types_is_refused_as_it_is_read(key, value, expected):
    """Found 2026-12-06 with cards edited in a dataset's metadata: `card` ended in tracebacks, or
    rendered a goal consistency of 750.00%; a stored card is input, checked as read."""
    data = json.loads(card().dumps())
    data["return" if key == "returns" else key] = value
    with pytest.raises(CardError, match="metadata.json") as error:
        Card.from_json(data, where="metadata.json")
    assert expected in str(error.value)
    assert Card.from_json(json.loads(card(goal_consistency=None, length={"std": None}).dumps())).length == {
        "std": None}


def test_every_committed_figure_belongs_to_a_committed_card():
    """A card's figures (``ID.png``, ``ID-episode.png``, ``ID-vs-oracle.png``) leave with it:
    no committed picture describes a dataset whose card is gone."""
    cards = Path(__file__).resolve().parents[1] / "cards"
    figures = sorted(cards.rglob("*.png"))
    assert figures
    orphans = [str(path.relative_to(cards)) for path in figures
               if not path.with_name(re.sub(r"-(episode|vs-oracle)$", "", path.stem) + ".json").exists()]
    assert orphans == []


def test_a_card_names_the_levels_tasks_it_holds_no_episode_of():
    """Found by a review (2026-12-08): a verified set that kept no episode of some tasks showed
    them only as crosses in a figure, unlabelled past 24 tasks."""
    from imaginebench_data.cards.render import render_markdown
    from imaginebench_data.domains import get_domain

    easy = [task.id for task in get_domain("clevr").tasks("easy")]
    stats = {"episodes": 1, "goal_consistency": 1.0, "length": {"mean": 1.0}, "return": {"mean": 1.0},
             "transition_error_rate": 0.0, "illegal_state_rate": 0.0}
    some = card(length={"mean": 1.0, "min": 1, "max": 1}, returns={"mean": 0.5, "std": 0.0},
                per_task={task: stats for task in easy[2:]}, provenance={"packages": {}})
    line = f"No episode of 2 of the level's {len(easy)} tasks: {easy[0]}, {easy[1]}."
    assert line in render_markdown(some).splitlines()
    every = replace(some, per_task={task: stats for task in easy})
    assert "No episode of" not in render_markdown(every)


def test_every_committed_cards_markdown_is_what_its_json_renders():
    """A card's Markdown is ``render_markdown`` of its JSON, then its figures' sections: the
    committed cards are what the code builds, down to their text."""
    from imaginebench_data.cards.render import render_markdown

    cards = Path(__file__).resolve().parents[1] / "cards"
    stale = []
    for path in sorted(cards.rglob("*.json")):
        text = path.with_suffix(".md").read_text()
        ends = [text.find(f"\n## {heading}\n") for heading in ("One episode", "Against the oracle")]
        if text[:min([i for i in ends if i >= 0], default=len(text))] != render_markdown(
                Card.from_json(path.read_text())):
            stale.append(str(path.relative_to(cards)))
    assert stale == []
