"""The command line as a user runs it, on a tiny build, and quality_frame against the card."""

import json

import pytest
from typer.testing import CliRunner

from imaginebench_data import quality_frame
from imaginebench_data.cli import app

HARD = "imaginebench/clevr-hard-real-v0"


@pytest.fixture
def built(minari_root, tmp_path):
    result = CliRunner().invoke(app, ["build", HARD, "--episodes", "4", "--workers", "1",
                                      "--cards-dir", str(tmp_path / "cards")])
    assert result.exit_code == 0, result.output
    return json.loads((tmp_path / "cards" / "clevr-hard-real-v0.json").read_text())


def test_build_list_inspect_card(built, tmp_path):
    runner = CliRunner()
    listing = runner.invoke(app, ["list"])
    assert listing.exit_code == 0 and HARD in listing.output
    inspected = runner.invoke(app, ["inspect", HARD])
    assert inspected.exit_code == 0 and f"{built['episodes']} episodes" in inspected.output
    again = runner.invoke(app, ["build", HARD, "--episodes", "4", "--workers", "1",
                                "--cards-dir", str(tmp_path / "cards")])
    assert again.exit_code != 0 and "--force" in str(again.exception)
    rendered = runner.invoke(app, ["card", HARD, "--cards-dir", str(tmp_path / "again")])
    assert rendered.exit_code == 0
    assert json.loads((tmp_path / "again" / "clevr-hard-real-v0.json").read_text()) == built


def test_quality_frame_agrees_with_the_card(built):
    frame = quality_frame(HARD)
    assert len(frame) == built["episodes"] == 4
    assert frame["length"].sum() == built["steps"]
    assert frame["success"].mean() == pytest.approx(built["goal_consistency"])
    assert list(frame["task_id"]) == [t for t in built["per_task"]][:4]
    assert (frame["illegal_states"] == 0).all() and (frame["transition_errors"] == 0).all()


def test_unknown_dataset_is_a_clear_cli_error(minari_root):
    result = CliRunner().invoke(app, ["inspect", "imaginebench/clevr-easy-real-v3"])
    assert result.exit_code != 0
    assert "clevr-easy-real-v3" in str(result.exception) and "imaginebench build" in str(result.exception)


def test_cards_of_another_namespace_get_their_own_folder():
    from imaginebench_data.build.pipeline import default_cards_dir

    root = default_cards_dir()
    assert default_cards_dir("imaginebench/clevr-train-real-v0") == root
    assert default_cards_dir("imaginebench-original/clevr-train-real-v0") == root / "imaginebench-original"


def test_build_by_domain_names_unknown_domains(minari_root):
    result = CliRunner().invoke(app, ["build", "--domain", "atari"])
    assert result.exit_code != 0 and "atari" in result.output and "clevr" in result.output
