"""The command line as a user runs it, on a tiny build, and quality_frame against the card."""

import json
import os
import sys
import time
import warnings
from pathlib import Path

import pytest
from typer.testing import CliRunner

from imaginebench_data import quality_frame
from imaginebench_data.cli import app
from imaginebench_data.imports import import_dir

HARD = "imaginebench/clevr-hard-real-v0"


@pytest.fixture
def built(minari_root, tmp_path):
    result = CliRunner().invoke(app, ["build", HARD, "--episodes", "4", "--workers", "1",
                                      "--cards-dir", str(tmp_path / "cards")])
    assert result.exit_code == 0, result.output
    return json.loads((tmp_path / "cards" / "clevr-hard-real-v0.json").read_text())


def test_build_list_inspect_card(built, tmp_path):
    runner = CliRunner()
    listing = runner.invoke(app, ["list"], env={"COLUMNS": "300"})
    row = next(line for line in listing.output.splitlines() if HARD in line)
    assert listing.exit_code == 0 and row.split("│")[-2].strip() == "yes", listing.output
    inspected = runner.invoke(app, ["inspect", HARD])
    assert inspected.exit_code == 0 and f"{built['episodes']} episodes" in inspected.output
    from imaginebench_data.pipeline.recipe import load_recipes

    demo = load_recipes()[HARD].episodes["demo"]  # --episodes 4 is said in the card, not hidden
    assert built["provenance"]["episodes_override"] == {"built": 4, "recipe_at_scale": demo} and demo != 4
    again = runner.invoke(app, ["build", HARD, "--episodes", "4", "--workers", "1",
                                "--cards-dir", str(tmp_path / "cards")])
    assert again.exit_code == 2 and "--force" in again.output and "Traceback" not in again.output
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


def test_unknown_dataset_is_one_line_without_a_traceback(minari_root):
    result = CliRunner().invoke(app, ["inspect", "imaginebench/clevr-easy-real-v3"])
    assert result.exit_code == 2 and result.exception is not None  # typer.Exit, not the KeyError
    assert not isinstance(result.exception, KeyError)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: dataset 'imaginebench/clevr-easy-real-v3'")
    assert "No recipe builds it" in lines[0] and "Traceback" not in result.output  # v3: no recipe
    debug = CliRunner().invoke(app, ["--debug", "inspect", "imaginebench/clevr-easy-real-v3"])
    assert isinstance(debug.exception, KeyError)  # --debug lets the error through with its traceback


@pytest.mark.parametrize("bad", ["imaginebench/clevr-easy-real-v00", "imaginebench/clevr-easy-real-v\u0660",
                                 "imaginebench/clevr-easy-real-v0\n", " imaginebench/clevr-easy-real-v0"])
def test_malformed_ids_are_refused_in_one_line(minari_root, bad):
    bad = bad.encode().decode("unicode_escape")
    result = CliRunner().invoke(app, ["inspect", bad])
    assert result.exit_code == 2 and "malformed dataset id" in result.output
    assert "Traceback" not in result.output


def test_cards_of_another_namespace_get_their_own_folder():
    from imaginebench_data.datasets.ids import DatasetId
    from imaginebench_data.pipeline.build import default_cards_dir

    root = default_cards_dir(DatasetId.parse("imaginebench/clevr-train-real-v0"))
    assert root.name == "cards"
    assert (default_cards_dir(DatasetId.parse("imaginebench-original/clevr-train-real-v0"))
            == root / "imaginebench-original")


def test_paper_scale_cards_go_beside_the_demo_ones(minari_root, tmp_path, monkeypatch):
    monkeypatch.setenv("IMAGINEBENCH_CARDS", str(tmp_path / "cards"))
    for scale in ("demo", "paper"):
        result = CliRunner().invoke(app, ["build", "imaginebench/babyai-rephrase-real-v0", "--scale", scale,
                                          "--episodes", "3", "--workers", "1", "--force"])
        assert result.exit_code == 0, result.output
    demo = json.loads((tmp_path / "cards" / "babyai-rephrase-real-v0.json").read_text())
    paper = json.loads((tmp_path / "cards" / "paper" / "babyai-rephrase-real-v0.json").read_text())
    assert (demo["scale"], paper["scale"]) == ("demo", "paper")


def test_build_by_domain_names_unknown_domains(minari_root):
    result = CliRunner().invoke(app, ["build", "--domain", "atari"])
    assert result.exit_code != 0 and "atari" in result.output and "clevr" in result.output


def test_build_names_an_unknown_numerics_and_builds_nothing(minari_root):
    result = CliRunner().invoke(app, ["build", HARD, "--numerics", "fast"])
    assert result.exit_code == 2 and "--numerics" in result.output and "'fast'" in result.output
    assert not minari_root.exists()


def _edit_stored(minari_root, dataset_id: str, key: str, edit) -> None:
    """Change one stored array of episode 0 in place, behind Minari's back."""
    import h5py

    path = minari_root / dataset_id / "data" / "main_data.hdf5"
    with h5py.File(path, "r+") as f:
        array = f["episode_0"][key]
        values = array[()]
        edit(values)
        array[...] = values


def test_verify_passes_a_fresh_build_and_names_what_was_tampered_with(built, minari_root):
    import os
    import subprocess
    from pathlib import Path

    command = [str(Path(sys.executable).with_name("imaginebench")), "verify"]
    fresh = subprocess.run(command, capture_output=True, text=True, cwd="/",
                           env={**os.environ, "MINARI_DATASETS_PATH": str(minari_root), "COLUMNS": "200"})
    assert fresh.returncode == 0, fresh.stdout + fresh.stderr
    assert "1 of 1 datasets verified" in fresh.stdout

    runner = CliRunner()
    _edit_stored(minari_root, HARD, "infos/legal", lambda legal: legal.__setitem__(2, False))
    flagged = runner.invoke(app, ["verify", HARD])
    assert flagged.exit_code == 1 and "episode 0: illegal state at step 2" in flagged.output
    assert "the data changed after it was written" in flagged.output  # the flags are in the checksum

    _edit_stored(minari_root, HARD, "rewards", lambda rewards: rewards.__setitem__(0, rewards[0] + 1))
    changed = runner.invoke(app, ["verify", HARD])
    assert changed.exit_code == 1 and "the data changed after it was written" in changed.output


@pytest.mark.parametrize("workers", ["0", "-3", "1000"])
def test_worker_counts_outside_one_to_four_per_core_are_refused(minari_root, workers):
    result = CliRunner().invoke(app, ["build", HARD, "--episodes", "1", "--workers", workers])
    assert result.exit_code == 2 and "--workers" in result.output and "Traceback" not in result.output
    assert not (minari_root / "imaginebench").exists()  # nothing was built


def _verify_problems(dataset_id: str) -> list[str]:
    from imaginebench_data.datasets.verify import verify as verify_one

    return verify_one(dataset_id).problems


@pytest.mark.parametrize("edit", ["transition_error", "illegal_mask", "task_id", "seed"])
def test_the_checksum_covers_flags_and_metadata_no_card_figure_shows(built, minari_root, edit):
    """Edits that leave every card figure as it was: only the checksum can see them."""
    import h5py

    assert _verify_problems(HARD) == []
    path = minari_root / HARD / "data" / "main_data.hdf5"
    with h5py.File(path, "r+") as f:
        episode = f["episode_0"]
        if edit == "transition_error":
            episode["infos/transition_error"][1] = episode["infos/transition_error"][1] + 1e-9
        elif edit == "illegal_mask":
            mask = episode["infos/illegal_mask"][()]
            mask[0] = mask[0] + 1 if mask.dtype != bool else ~mask[0]
            episode["infos/illegal_mask"][...] = mask
        elif edit == "task_id":  # episode 0 said to be episode 1's task, whose statistics it joins
            episode.attrs["options/task_id"] = f["episode_1"].attrs["options/task_id"]
        else:
            episode.attrs["seed"] = int(episode.attrs["seed"]) + 1
    problems = _verify_problems(HARD)
    assert any("the data changed after it was written" in p for p in problems), problems


def test_an_episode_dropped_from_the_metadata_is_found_by_verify_and_the_loader(built, minari_root):
    import imaginebench_data as ib
    from imaginebench_data.loader.transitions import DatasetChangedError

    metadata = minari_root / HARD / "data" / "metadata.json"
    data = json.loads(metadata.read_text())
    data["total_episodes"] -= 1
    metadata.write_text(json.dumps(data))
    problems = _verify_problems(HARD)
    assert any("card says 4 episodes, Minari reads 3" in p for p in problems), problems
    assert any("the data changed after it was written" in p for p in problems), problems
    with pytest.raises(DatasetChangedError):
        ib.load(HARD, cache_dir=minari_root.parent / "cache")


def test_a_card_of_schema_2_states_the_older_checksum_and_still_verifies(built, minari_root):
    """Datasets written before schema 3 keep verifying: their card names the checksum it states."""
    from imaginebench_data.cards.card import Card
    from imaginebench_data.datasets.checksum import DatasetChecksum
    from imaginebench_data.datasets.read import open_dataset, stored_episodes
    from imaginebench_data.domains import get_domain

    dataset, card = open_dataset(HARD)
    older, newer = DatasetChecksum(everything=False), DatasetChecksum()
    for episode in stored_episodes(dataset, get_domain("clevr")):
        older.update(episode)
        newer.update(episode)
    assert newer.hexdigest() == card.checksum != older.hexdigest()
    stated = {**card.to_json(), "schema_version": 2, "checksum": older.hexdigest()}
    dataset.storage.update_metadata({"imaginebench_card": stated})
    assert Card.from_json(stated).schema_version == 2
    assert _verify_problems(HARD) == []
    dataset.storage.update_metadata({"imaginebench_card": {**stated, "checksum": newer.hexdigest()}})
    assert any("the data changed" in p for p in _verify_problems(HARD))


def test_verify_checks_every_dataset_and_names_each_broken_one(built, minari_root, tmp_path):
    easy = "imaginebench/clevr-easy-real-v0"
    result = CliRunner().invoke(app, ["build", easy, "--episodes", "3", "--workers", "1",
                                      "--cards-dir", str(tmp_path / "cards")])
    assert result.exit_code == 0, result.output
    # flipped success flags change no array of the checksum, but the card's figures no longer match
    _edit_stored(minari_root, HARD, "infos/success", lambda success: success.__setitem__(-1, not success[-1]))
    hdf5 = minari_root / easy / "data" / "main_data.hdf5"
    hdf5.write_bytes(hdf5.read_bytes()[:1000])  # a truncated file
    result = CliRunner().invoke(app, ["verify"], env={"COLUMNS": "300"})
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "0 of 2 datasets verified" in result.output
    assert "card figure 'goal_consistency'" in result.output  # the flipped flag, found
    assert "cannot be read" in result.output  # the truncated file, named, and the run went on


@pytest.mark.parametrize("damage", ["emptied", "deleted"])
def test_list_does_not_call_a_dataset_without_its_data_built(built, minari_root, damage):
    """Found 2026-12-06: Minari lists a dataset by its metadata.json alone, and `list` said "yes"."""
    main = minari_root / HARD / "data" / "main_data.hdf5"
    main.write_bytes(b"") if damage == "emptied" else main.unlink()
    listing = CliRunner().invoke(app, ["list"], env={"COLUMNS": "300"})
    row = next(line for line in listing.output.splitlines() if HARD in line)
    assert listing.exit_code == 0 and "damaged (see `imaginebench verify`)" in row, listing.output


def test_list_calls_a_dataset_whose_metadata_is_gone_damaged_without_minaris_warning(built, minari_root):
    """Found 2026-12-06: Minari's "Misconfigured dataset" warning reached the terminal, and the
    row said nothing."""
    (minari_root / HARD / "data" / "metadata.json").unlink()
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="Misconfigured")  # would end the listing here
        listing = CliRunner().invoke(app, ["list"], env={"COLUMNS": "300"})
    row = next(line for line in listing.output.splitlines() if HARD in line)
    assert listing.exit_code == 0 and "damaged (see `imaginebench verify`)" in row, listing.output
    assert "Misconfigured" not in listing.output


@pytest.mark.parametrize("damage", ["deleted", "malformed"])
def test_verify_reports_a_dataset_whose_metadata_minari_cannot_read(built, minari_root, tmp_path, damage):
    """Minari's listing skips a dataset whose metadata.json is gone or not JSON (with a warning),
    so `verify` with no ids must look at the folders too, or it would pass with it broken."""
    import shutil

    easy = "imaginebench/clevr-easy-real-v0"
    shutil.copytree(minari_root / HARD, minari_root / easy)
    metadata = minari_root / easy / "data" / "metadata.json"
    metadata.unlink() if damage == "deleted" else metadata.write_text(metadata.read_text()[:200])
    result = CliRunner().invoke(app, ["verify"], env={"COLUMNS": "300"})
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert "1 of 2 datasets verified" in result.output
    assert easy in result.output and "cannot be read" in result.output
    if damage == "malformed":  # the loader and inspect name the file, and what it should have been
        from imaginebench_data import load

        with pytest.raises(ValueError, match=r"metadata.json: expected Minari's metadata as JSON"):
            load(easy)
        inspected = CliRunner().invoke(app, ["inspect", easy], env={"COLUMNS": "300"})
        assert inspected.exit_code == 2
        assert f"{metadata}: expected Minari's metadata as JSON" in inspected.output


def test_verify_never_raises(minari_root):
    from imaginebench_data.datasets.verify import verify as verify_one

    for dataset_id in ("imaginebench/clevr-easy-real-v00", "imaginebench/clevr-easy-real-v3"):
        verdict = verify_one(dataset_id)
        assert not verdict.ok and verdict.problems[0].startswith("cannot be read")


@pytest.mark.parametrize("given, meant", [
    ("imaginebench/clevr-train-real-v00", "imaginebench/clevr-train-real-v0"),  # malformed
    ("imaginebench/clever-train-real-v0", "imaginebench/clevr-train-real-v0"),  # no such recipe
    ("imaginebench/clevr-hard-real-v1", "imaginebench/clevr-hard-real-v0"),
    ("clevr-hard-real-v0", "imaginebench/clevr-hard-real-v0"),  # the namespace left out
])
def test_a_mistyped_id_gets_a_did_you_mean(minari_root, given, meant):
    result = CliRunner().invoke(app, ["build", given, "--episodes", "1"])
    assert result.exit_code == 2 and f"Did you mean {meant!r}?" in result.output


def test_a_mistyped_option_gets_a_did_you_mean(minari_root):
    result = CliRunner().invoke(app, ["build", HARD, "--forc"])
    assert result.exit_code == 2 and "--force" in result.output


def test_another_packages_datasets_in_the_minari_folder_are_skipped_with_a_note(built, minari_root):
    import gymnasium as gym
    import minari
    import numpy as np
    from minari.data_collector import EpisodeBuffer

    buffer = EpisodeBuffer(id=0, observations=np.zeros((3, 2), np.float32), actions=np.zeros(2, np.int64),
                           rewards=np.zeros(2), terminations=np.array([False, True]),
                           truncations=np.zeros(2, bool))
    for name in ("otherpkg/cartpole-expert-v0", "imaginebench/cartpole-train-real-v0"):
        with pytest.warns(UserWarning):
            minari.create_dataset_from_buffers(name, [buffer], observation_space=gym.spaces.Box(-1, 1, (2,)),
                                               action_space=gym.spaces.Discrete(2))
    result = CliRunner().invoke(app, ["verify"], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert "skipped 1 dataset(s) not written by imaginebench-data: imaginebench/cartpole-train-real-v0" in (
        result.output)
    assert "1 of 1 datasets verified" in result.output
    listing = CliRunner().invoke(app, ["list"])
    assert listing.exit_code == 0


COMMANDS = ["list", "build", "card", "verify", "inspect", "ground", "evaluate", "import"]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_shows_an_example_in_its_help(command):
    result = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "Examples:" in result.output
    assert f"imaginebench {command}" in result.output


def test_build_says_whether_the_checksum_equals_the_committed_cards(minari_root, tmp_path):
    cards = tmp_path / "cards"
    options = ["--episodes", "3", "--workers", "1", "--cards-dir", str(cards), "--force"]
    first = CliRunner().invoke(app, ["build", HARD, *options], env={"COLUMNS": "250"})
    assert first.exit_code == 0 and "no card before" in first.output, first.output
    again = CliRunner().invoke(app, ["build", HARD, *options], env={"COLUMNS": "250"})
    assert again.exit_code == 0 and again.output.rstrip().splitlines()[-2].rstrip(" │").endswith("yes")
    committed = cards / "clevr-hard-real-v0.json"
    committed.write_text(committed.read_text().replace('"checksum": "', '"checksum": "0'))
    changed = CliRunner().invoke(app, ["build", HARD, *options], env={"COLUMNS": "250"})
    assert changed.exit_code == 0 and changed.output.rstrip().splitlines()[-2].rstrip(" │").endswith("no")


@pytest.mark.parametrize("args, message", [
    (["--algo", "cql", "--d3rlpy", "learning_rate"], "a d3rlpy setting is KEY=VALUE"),
    (["--d3rlpy", "learning_rate=3e-4"], "--d3rlpy sets d3rlpy's algorithms"),
    (["--regime", "imaginary"], "unknown regime 'imaginary'; expected one of real, real+imaginary, "
                                "real+verified, oracle"),
    (["--level", "medium"], "unknown level 'medium'; expected one of train, rephrase, easy, hard"),
    (["--level", "train", "--regime", "oracle"], "nothing to compare on clevr: no level and regime asked "
                                                 "for has its datasets built"),
])
def test_a_malformed_evaluate_option_is_one_line_before_any_training(minari_root, args, message):
    result = CliRunner().invoke(app, ["evaluate", "--domain", "clevr", *args], env={"COLUMNS": "250"})
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


def test_evaluate_with_d3rlpys_algorithms_and_no_d3rlpy_names_its_environment(minari_root, monkeypatch):
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *args: None if name == "d3rlpy" else real_find_spec(name, *args))
    env = {"COLUMNS": "250"}
    result = CliRunner().invoke(app, ["evaluate", "--domain", "clevr", "--algo", "td3+bc"], env=env)
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert "td3+bc needs d3rlpy" in result.output and ".venv-d3rlpy/bin/imaginebench" in result.output
    assert "Training" not in result.output and "%" not in result.output  # no progress bar began
    unknown = CliRunner().invoke(app, ["evaluate", "--domain", "clevr", "--algo", "sac"], env=env)
    assert unknown.exit_code == 2 and "expected one of bc, cql, td3+bc, got 'sac'" in unknown.output


def test_evaluate_runs_only_the_regimes_asked_for(train_set, tmp_path):
    import pandas as pd

    from imaginebench_data.pipeline.build import build

    easy, out = "imaginebench/clevr-easy-real-v0", tmp_path / "results"
    build(easy, episodes=8, workers=1, cards_dir=tmp_path / "cards", progress=False)
    result = CliRunner().invoke(app, ["evaluate", "--domain", "clevr", "--level", "easy", "--regime",
                                      "oracle", "--seeds", "1", "--steps", "20", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = pd.read_csv(out / "clevr-bc.csv")
    assert rows[["level", "regime", "seed"]].values.tolist() == [["easy", "oracle", 0]]
    written = sorted(path.name for path in out.iterdir())
    assert written == ["clevr-bc.csv", "clevr-bc.journal.csv", "clevr-bc.md", "clevr-bc.png"]
    # the finished run's journal kept: the same command with more seeds trains the new seed only
    more = CliRunner().invoke(app, ["evaluate", "--domain", "clevr", "--level", "easy", "--regime", "oracle",
                                    "--seeds", "2", "--steps", "20", "--out", str(out)])
    assert more.exit_code == 0, more.output
    assert "1 of 2 trainings read back" in more.output
    note = (out / "clevr-bc.md").read_text()
    assert "(and 1 training read back from the journal of an earlier run)" in note
    extended = pd.read_csv(out / "clevr-bc.csv")
    assert extended["seed"].tolist() == [0, 1] and extended.iloc[:1].equals(rows)


@pytest.mark.parametrize("command, option", [
    (["ground", "imaginebench/clevr-train-real-v0", "--batch-size", "-1"], "--batch-size"),
    (["ground", "imaginebench/clevr-train-real-v0", "--batch-size", "0"], "--batch-size"),
    (["ground", "imaginebench/clevr-train-real-v0", "--dynamics-per-episode", "-5"],
     "--dynamics-per-episode"),
    (["ground", "imaginebench/clevr-train-real-v0", "--seed", "-1"], "--seed"),
    (["ground", "imaginebench/clevr-train-real-v0", "--lora", "-1"], "--lora"),
    (["ground", "imaginebench/clevr-train-real-v0", "--lr", "-1"], "--lr"),
    (["ground", "imaginebench/clevr-train-real-v0", "--action-weight", "0"], "--action-weight"),
    (["ground", "imaginebench/clevr-train-real-v0", "--action-bins", "1"], "--action-bins"),
    (["build", HARD, "--episodes", "0"], "--episodes"),
    (["build", HARD, "--batch-size", "0"], "--batch-size"),
    (["evaluate", "--seeds", "0"], "--seeds"),
    (["evaluate", "--steps", "0"], "--steps"),
    (["evaluate", "--dropout", "1"], "--dropout"),
    (["evaluate", "--bins", "1"], "--bins"),
    (["evaluate", "--domain", "clevrr"], "--domain"),
])
def test_counts_and_rates_out_of_range_are_refused_before_any_work(minari_root, command, option):
    """Found by trying them (2026-12-06): `ground --batch-size -1` trained 0 batches and saved the
    untrained model, `--batch-size 0` died in a ZeroDivisionError after loading; `evaluate --steps
    0` trained the budget's steps and `--domain clevrr` blamed the datasets."""
    result = CliRunner().invoke(app, command, env={"COLUMNS": "200"})
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert option in result.output and not (minari_root / "imaginebench").exists()


def test_a_cards_folder_that_is_a_file_fails_the_build_before_the_dataset_is_replaced(built, minari_root,
                                                                                      tmp_path):
    """Found by trying it (2026-12-06): `--force` with --cards-dir naming a file replaced the
    dataset, then failed writing its card ("File exists"), the previous version lost."""
    import minari

    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    result = CliRunner().invoke(app, ["build", HARD, "--episodes", "2", "--workers", "1", "--force",
                                      "--cards-dir", str(blocked)], env={"COLUMNS": "200"})
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"cards folder {blocked}: expected a folder" in " ".join(result.output.split())
    assert minari.load_dataset(HARD).total_episodes == built["episodes"] == 4  # the old version, whole


def test_an_interrupted_card_leaves_the_card_files_as_they_were(built, tmp_path, monkeypatch):
    """Found 2026-12-06: Ctrl-C during `card` said nothing half-written was left, with the new
    JSON and plot written and the Markdown not; the files are now drawn aside and moved in."""
    from imaginebench_data.cards import render

    target = tmp_path / "cards-again"
    assert CliRunner().invoke(app, ["card", HARD, "--cards-dir", str(target)]).exit_code == 0
    before = {path.name: path.read_bytes() for path in target.iterdir()}
    (target / "clevr-hard-real-v0.json").write_text("the card before")
    before["clevr-hard-real-v0.json"] = b"the card before"

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(render, "draw_card_episode", interrupted)  # after the JSON and the plot
    result = CliRunner().invoke(app, ["card", HARD, "--cards-dir", str(target)])
    assert result.exit_code == 130 and "interrupted" in result.output
    assert {path.name: path.read_bytes() for path in target.iterdir()} == before  # no staging left either
    blocked = tmp_path / "a-file"
    blocked.write_text("x")
    refused = CliRunner().invoke(app, ["card", HARD, "--cards-dir", str(blocked)], env={"COLUMNS": "250"})
    assert refused.exit_code == 2 and f"cards folder {blocked}: expected a folder" in refused.output


def _deny_writes(monkeypatch, folder):
    """``folder`` as a read-only file system shows it to ``os.access`` (root ignores chmod)."""
    real_access = os.access
    def access(path, mode, **kwargs):
        return Path(path) != folder and real_access(path, mode, **kwargs)

    monkeypatch.setattr(os, "access", access)


def test_folders_that_cannot_be_written_are_refused_before_the_work(built, minari_root, tmp_path,
                                                                    monkeypatch):
    """Found 2026-12-06 on a read-only mount: `build` worked, then ended in an OSError traceback
    at the lock folder; `card` and `render` in tracebacks too."""
    shut = tmp_path / "shut"
    shut.mkdir()
    _deny_writes(monkeypatch, shut)
    env = {"COLUMNS": "250"}
    drawn = CliRunner().invoke(app, ["render", HARD, "--episode", "0", "--out", str(shut / "x.png")], env=env)
    assert drawn.exit_code == 2 and f"--out {shut}: {shut} cannot be written to" in drawn.output, drawn.output
    carded = CliRunner().invoke(app, ["card", HARD, "--cards-dir", str(shut / "cards")], env=env)
    assert carded.exit_code == 2
    assert f"cards folder {shut / 'cards'}: {shut} cannot be written" in carded.output
    _deny_writes(monkeypatch, minari_root)
    started = time.perf_counter()
    result = CliRunner().invoke(app, ["build", HARD, "--episodes", "2", "--workers", "1", "--force",
                                      "--cards-dir", str(tmp_path / "cards")], env=env)
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert f"Minari datasets folder {minari_root}: {minari_root} cannot be written to" in result.output
    assert "build imaginebench" not in result.output and time.perf_counter() - started < 10
    with pytest.raises(PermissionError, match="Minari datasets folder"):
        import_dir(tmp_path, progress=False)


def test_a_copied_dataset_folder_is_not_taken_for_the_id_it_is_under(built, minari_root, tmp_path):
    """Found 2026-12-06: a copy of a -v0 folder as -v1 verified "ok", and `card` of the -v1 wrote
    the -v0 card files (in a checkout, over the committed card)."""
    import shutil

    copy = HARD.replace("-v0", "-v1")
    shutil.copytree(minari_root / HARD, minari_root / copy)
    env = {"COLUMNS": "300"}
    checked = CliRunner().invoke(app, ["verify", copy], env=env)
    assert checked.exit_code == 1 and "expected the card of imaginebench/clevr-hard-real-v1" in checked.output
    assert "CardError" not in checked.output  # the reason, not the class of the error
    carded = CliRunner().invoke(app, ["card", copy, "--cards-dir", str(tmp_path / "copy-cards")], env=env)
    assert carded.exit_code == 2 and "found one of 'imaginebench/clevr-hard-real-v0'" in carded.output
    assert not (tmp_path / "copy-cards").exists()
    assert CliRunner().invoke(app, ["verify", HARD], env=env).exit_code == 0


def test_inspect_by_a_column_the_frame_lacks_names_the_columns(built):
    result = CliRunner().invoke(app, ["inspect", HARD, "--by", "bogus"], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "got 'bogus'" in result.output and "task_id" in result.output
    assert CliRunner().invoke(app, ["inspect", HARD, "--by", "phrasing_id"]).exit_code == 0
    # a column that is None in every built episode (the task resolution of imports) is one group,
    # not an empty table under a footer of 4 episodes (pandas drops None keys by default)
    resolved = CliRunner().invoke(app, ["inspect", HARD, "--by", "resolved_by"], env={"COLUMNS": "300"})
    row = next(line for line in resolved.output.splitlines() if "(none)" in line)
    assert resolved.exit_code == 0 and row.split("│")[2].strip() == str(built["episodes"]), resolved.output


@pytest.mark.parametrize("dataset_id, advice", [
    ("imaginebench/clevr-easy-real-v0",
     "Build it with `imaginebench build imaginebench/clevr-easy-real-v0`."),
    ("imaginebench/clevr-easy-real-v1", "No recipe builds it (`imaginebench list` shows those that do). "
                                        "Did you mean 'imaginebench/clevr-easy-real-v0'?"),
    ("imaginebench-original/clevr-easy-real-v0", "Import it with `imaginebench import FOLDER`"),
    ("IMAGINEBENCH/clevr-easy-real-v0", "Did you mean 'imaginebench/clevr-easy-real-v0'?"),  # lower case
    (" imaginebench/clevr-easy-real-v0", "Did you mean 'imaginebench/clevr-easy-real-v0', without the white "
                                         "space around it?"),
])
def test_a_missing_dataset_is_told_how_it_is_made(minari_root, dataset_id, advice):
    """Found 2026-12-06: every missing id was told to build itself, ids no recipe builds too."""
    result = CliRunner().invoke(app, ["inspect", dataset_id], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and advice in " ".join(result.output.split())
    if "Build it" in advice:  # a recipe's id, only not built: not misspelt
        assert "Did you mean" not in result.output


@pytest.mark.parametrize("arguments, code, first", [
    (["build", "--workers", "0"], 2, "error: Invalid value for '--workers': expected 1..8, got 0"),
    (["build", "--workers", "nine"], 2, "error: Invalid value for '--workers': Input should be a valid"),
    (["inspect"], 2, "error: Missing argument 'dataset_id'. (see `imaginebench inspect --help`)"),
    (["evaluate", "--seeds", "0"], 2, "error: Invalid value for '--seeds'"),
    (["build", "--frobnicate"], 2, "error: No such option: --frobnicate"),
    (["--help"], 0, None),
    ([], 2, None),  # no command: the help, as before
])
def test_a_mistake_in_the_command_line_is_one_line_as_the_console_script_runs(minari_root, arguments, code,
                                                                              first):
    """The console script (not CliRunner, which runs Click's own error box): a mistake in the
    options is one line on stderr, as the commands' own errors are (found 2026-12-06: Click's
    usage box took five lines)."""
    import os
    import subprocess
    from pathlib import Path

    script = str(Path(sys.executable).with_name("imaginebench"))
    ran = subprocess.run([script, *arguments], capture_output=True, text=True, cwd="/",
                         env={**os.environ, "MINARI_DATASETS_PATH": str(minari_root), "COLUMNS": "300"})
    assert ran.returncode == code, ran.stdout + ran.stderr
    if first is None:
        assert "Usage: imaginebench" in ran.stdout + ran.stderr and "Traceback" not in ran.stderr
    else:
        assert len(ran.stderr.strip().splitlines()) == 1 and ran.stderr.startswith(first), ran.stderr
        assert "see `imaginebench" in ran.stderr and ran.stdout == ""


def test_help_into_a_pipe_closed_early_ends_without_a_traceback(minari_root):
    """`imaginebench evaluate --help | head -3`: the reader goes away mid-help. Found on a fresh
    install (2026-12-06, Typer 0.29, which carries its own copy of Click without ``Abort``): the
    ``except`` that named Click's Abort raised an AttributeError over rich's broken-pipe exit."""
    import os
    import subprocess
    from pathlib import Path

    script = str(Path(sys.executable).with_name("imaginebench"))
    process = subprocess.Popen([script, "evaluate", "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               cwd="/", env={**os.environ, "MINARI_DATASETS_PATH": str(minari_root),
                                             "COLUMNS": "80"})
    first = process.stdout.read(200)
    process.stdout.close()  # as `head` does once it has its lines
    stderr = process.stderr.read().decode()
    process.wait(timeout=60)
    assert b"Usage: imaginebench evaluate" in first
    assert process.returncode in (0, 1) and "Traceback" not in stderr and "Error" not in stderr, stderr


@pytest.mark.parametrize("under", ["", "sub/deeper"])
@pytest.mark.parametrize("arguments", [["list"], ["verify"], ["build", HARD],
                                       ["inspect", HARD]])
def test_a_datasets_folder_that_is_a_file_is_one_line_naming_the_file(tmp_path, monkeypatch, under,
                                                                      arguments):
    """MINARI_DATASETS_PATH naming a file (or a path under one) was Minari's "[Errno 17] File
    exists" or a NotADirectoryError traceback (found 2026-12-06); now one line naming the file."""
    afile = tmp_path / "datasets"
    afile.write_text("not a folder")
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(afile / under) if under else str(afile))
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert lines[-1].startswith("error: MINARI_DATASETS_PATH is")
    assert f"but {str(afile)!r} is a file" in lines[-1]
    assert "Traceback" not in result.output and afile.read_text() == "not a folder"


@pytest.mark.parametrize("arguments", [["list"], ["verify"], ["inspect", HARD]])
def test_an_empty_datasets_path_is_one_line(monkeypatch, arguments):
    """Found 2026-12-06: MINARI_DATASETS_PATH='' read as Minari's path '' ("No such file or
    directory: ''"), while this package took it as unset."""
    monkeypatch.setenv("MINARI_DATASETS_PATH", "")
    result = CliRunner().invoke(app, arguments, env={"COLUMNS": "250"})
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert result.output.strip().splitlines()[-1].startswith("error: MINARI_DATASETS_PATH is set but empty")


@pytest.mark.parametrize("episodes, options, shown", [
    (8, [], "has 8 episodes: a grounding holds out every 10th episode to measure its evidence, so it needs "
            "at least 10;"),
    (12, ["--holdout-per-task"], "has 12 episodes, at most 1 of one task: a grounding holds out every 10th "
                                 "episode of each task"),
])
def test_a_grounding_with_nothing_to_hold_out_is_refused_before_training(minari_root, tmp_path, monkeypatch,
                                                                        episodes, options, shown):
    """Found by trying it (2026-12-06): it trained, then failed on "need at least one array to
    concatenate" and left a checkpoint without evidence that later runs took up and failed on."""
    from imaginebench_data.pipeline.build import build

    monkeypatch.setenv("IMAGINEBENCH_MODELS", str(tmp_path / "models"))
    train = "imaginebench/clevr-train-real-v0"
    build(train, episodes=episodes, workers=1, cards_dir=tmp_path / "cards", progress=False)
    result = CliRunner().invoke(app, ["ground", train, "--epochs", "1", *options], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert shown in " ".join(result.output.split())
    models = tmp_path / "models"
    assert not models.exists() or not any(models.iterdir())  # nothing trained, nothing left


def test_existing_versions_among_several_ids_are_refused_before_any_is_built(built, minari_root, tmp_path):
    """Found by trying it (2026-12-06): `build A B` built A, then stopped on B's existing version."""
    easy = "imaginebench/clevr-easy-real-v0"
    result = CliRunner().invoke(app, ["build", easy, HARD, "--episodes", "2", "--workers", "1",
                                      "--cards-dir", str(tmp_path / "cards")], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert f"{HARD} already exists; nothing was built: pass --force" in " ".join(result.output.split())
    assert not (minari_root / easy).exists()


def test_an_id_no_recipe_builds_is_refused_before_any_is_built(minari_root, tmp_path):
    """Found by a review (2026-12-07): `build A A-v1` built A, then refused the unknown id."""
    easy = "imaginebench/clevr-easy-real-v0"
    result = CliRunner().invoke(app, ["build", easy, "imaginebench/clevr-easy-real-v1", "--episodes", "2",
                                      "--workers", "1", "--cards-dir", str(tmp_path / "cards")],
                                env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert "no recipe builds 'imaginebench/clevr-easy-real-v1'" in " ".join(result.output.split())
    assert "nothing was built" in result.output and not (minari_root / easy).exists()


def test_an_id_named_twice_is_built_once(minari_root, tmp_path):
    result = CliRunner().invoke(app, ["build", HARD, HARD, "--episodes", "2", "--workers", "1",
                                      "--cards-dir", str(tmp_path / "cards")], env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output  # was: built, then "already exists" (exit 2)
    assert sum(line.startswith("│ " + HARD) for line in result.output.splitlines()) == 1


def test_skip_existing_names_a_damaged_version_instead_of_asking_for_skip_existing(built, minari_root,
                                                                                      tmp_path):
    """A folder whose metadata.json is gone is no dataset Minari lists, so --skip-existing cannot
    leave it be; it said "pass --force ..., or --skip-existing" to a command given it."""
    (minari_root / HARD / "data" / "metadata.json").unlink()
    result = CliRunner().invoke(app, ["build", HARD, "--skip-existing", "--episodes", "2", "--workers", "1",
                                      "--cards-dir", str(tmp_path / "cards")], env={"COLUMNS": "300"})
    line = " ".join(result.output.split())
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert f"{HARD}: the folder exists but Minari cannot read it" in line
    assert "pass --force to rebuild it" in line


def test_an_interrupt_names_the_datasets_built_before_it(minari_root, tmp_path, monkeypatch):
    """Ctrl-C in the second of two --force builds: the first is a new version, and the line says so
    (it said "existing datasets are as they were")."""
    from imaginebench_data.pipeline import build as pipeline

    real, calls = pipeline.build, []

    def second_interrupted(dataset_id, *args, **kwargs):
        calls.append(dataset_id)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(dataset_id, *args, **kwargs)

    monkeypatch.setattr(pipeline, "build", second_interrupted)
    easy = "imaginebench/clevr-easy-real-v0"
    result = CliRunner().invoke(app, ["build", HARD, easy, "--force", "--episodes", "2", "--workers", "1",
                                      "--cards-dir", str(tmp_path / "cards")], env={"COLUMNS": "300"})
    line = " ".join(result.output.split())
    assert result.exit_code == 130, result.output
    assert line.endswith(f"built before the interrupt (new versions): {HARD}")


def test_a_backbone_that_is_no_model_folder_is_refused_before_the_real_sets_are_built(minari_root, tmp_path,
                                                                                       monkeypatch):
    """Found by trying it (2026-12-06): the README's `build --domain clevr --backbone PATH` built the
    real sets first and met the missing folder only at the grounding."""
    monkeypatch.setenv("IMAGINEBENCH_MODELS", str(tmp_path / "models"))
    result = CliRunner().invoke(app, ["build", "imaginebench/clevr-easy-imaginary-v0", "--episodes", "2",
                                      "--backbone", str(tmp_path / "no-model"), "--cards-dir",
                                      str(tmp_path / "cards")], env={"COLUMNS": "300"})
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert "expected 'scratch' or a Hugging Face model directory with a config.json" in " ".join(
        result.output.split())
    assert not (minari_root / "imaginebench").exists()


def test_skip_existing_still_says_whether_a_skipped_set_is_the_committed_one(built, tmp_path):
    """A second `make demo` skips what is built; its table still has a row for each, against the
    committed card (here the cards folder the first build wrote)."""
    cards = str(tmp_path / "cards")
    again = CliRunner().invoke(app, ["build", HARD, "--skip-existing", "--cards-dir", cards],
                               env={"COLUMNS": "300"})
    row = next(line for line in again.output.splitlines() if line.startswith("│ " + HARD))
    cells = [cell.strip() for cell in row.split("│")[1:-1]]
    assert again.exit_code == 0 and cells[1:3] == [str(built["episodes"]), str(built["steps"])]
    assert cells[-2:] == ["skipped", "yes"]
    paper = CliRunner().invoke(app, ["build", HARD, "--skip-existing", "--scale", "paper",
                                     "--cards-dir", cards], env={"COLUMNS": "300"})
    assert "built at demo scale" in paper.output, paper.output
