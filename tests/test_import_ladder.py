"""The original release as its users have it: every trajectory's task resolved by the ladder.

The folder (``original_release``) holds files in the original layouts with the original's kind of
instructions; the true task of every row is known by construction. At least 95% resolve to it,
none to a wrong task, and the rest are kept with task id ``unresolved`` and their own text.
"""

import numpy as np
import pytest
from original_release import NONSENSE, write_release_folder
from typer.testing import CliRunner

from imaginebench_data.cards.card import SCHEMA_VERSION
from imaginebench_data.cli import app
from imaginebench_data.datasets.read import open_dataset, stored_episodes
from imaginebench_data.datasets.verify import verify
from imaginebench_data.domains import get_domain
from imaginebench_data.imports import import_dir
from imaginebench_data.imports.convert import UNKNOWN_INSTRUCTION
from imaginebench_data.imports.encodings import ENCODING_TOLERANCE, EncodingTable
from imaginebench_data.imports.resolve import TaskResolver
from imaginebench_data.imports.texts import match_key


@pytest.fixture(scope="module")
def release(tmp_path_factory):
    folder = tmp_path_factory.mktemp("release")
    return folder, write_release_folder(folder)


@pytest.fixture(scope="module")
def imported(release, tmp_path_factory):
    folder, truth = release
    minari_root = tmp_path_factory.mktemp("minari")
    patch = pytest.MonkeyPatch()
    patch.setenv("MINARI_DATASETS_PATH", str(minari_root))
    results = import_dir(
        folder, encodings=[folder / "metaworld_encode.npy"], cards_dir=folder / "cards", progress=False
    )
    stored = {
        r.file_name: list(stored_episodes(open_dataset(r.dataset_id)[0], get_domain(r.dataset_id.domain)))
        for r in results
    }
    yield results, stored, truth
    patch.undo()


def test_nearly_every_trajectory_resolves_to_its_true_task_and_none_to_another(imported):
    results, stored, truth = imported
    assert sorted(stored) == sorted(truth)
    right = wrong = unresolved = 0
    for name, episodes in stored.items():
        assert [e.seed for e in episodes] == list(range(len(truth[name])))  # nothing dropped
        for episode in episodes:
            true = truth[name][episode.seed]
            if episode.task_id == "unresolved":
                unresolved += true is not None
                assert episode.resolved_by == "unresolved" and episode.phrasing_id == -1
                assert not episode.terminations[-1] and episode.truncations[-1]
            else:
                assert episode.task_id == true, (name, episode.seed, episode.instruction, episode.resolved_by)
                right += 1
                assert episode.resolved_by != "unresolved"
        assert wrong == 0
    assert right / (right + unresolved) >= 0.95, (right, unresolved)


def test_each_rung_does_its_part_and_the_card_counts_it(imported):
    results, stored, truth = imported
    by_file = {r.file_name: r for r in results}
    assert by_file["ball_real.hdf5"].resolution == {"goal": 6}
    assert set(by_file["babyai_real.npy"].resolution) == {"phrasing", "template", "unresolved"}
    assert by_file["babyai_rephrase.npy"].resolution.get("template", 0) >= 12  # task_str
    assert by_file["mujoco_real.npy"].resolution == {"phrasing": 8}  # the original's sentences are ours too
    assert by_file["libero_real.npy"].resolution == {"template": 12}  # alphabet_soup read as "alphabet soup"
    assert by_file["mujoco_imaginary_rephrase.npy"].resolution.get("embedding", 0) >= 5
    metaworld = by_file["metaworld_real.h5"]
    assert sum(v for k, v in metaworld.resolution.items() if k.startswith("encoding+")) >= 16
    for result in results:
        card = result.card
        assert card.resolution == result.resolution and sum(card.resolution.values()) == card.episodes
        assert card.unresolved == result.resolution.get("unresolved", 0)
        assert card.provenance["resolution"] == result.resolution
        # the card's figures recompute from the stored flags (LIBERO's rebuilt-scene floor aside)
        problems = [p for p in verify(result.dataset_id).problems if "must meet the floor" not in p]
        assert card.schema_version == SCHEMA_VERSION and not problems, problems
    card = by_file["metaworld_real.h5"].card
    assert card.per_task["unresolved"]["goal_consistency"] is None
    assert card.provenance["encoding_files"] == ["metaworld_encode.npy"]


def test_unresolved_trajectories_keep_their_text(imported):
    _, stored, truth = imported
    babyai = stored["babyai_real.npy"][-1]
    assert (babyai.task_id, babyai.instruction) == ("unresolved", NONSENSE)
    stranger = stored["metaworld_real.h5"][-1]  # an encoding no dictionary holds: no text at all
    assert (stranger.task_id, stranger.instruction) == ("unresolved", UNKNOWN_INSTRUCTION)
    assert np.isnan(stranger.infos["transition_error"][1:]).all()  # Meta-World's scene is the task's
    decoded = [e for e in stored["metaworld_real.h5"] if e.task_id != "unresolved"]
    assert all(e.instruction.endswith((".", "?")) for e in decoded)  # the text the encoding names
    libero = stored["libero_real.npy"][0]
    assert libero.instruction == "Employ the gripper to seize the alphabet soup."


def test_the_cli_prints_the_rungs_per_file(release, minari_root, tmp_path):
    folder, _ = release
    result = CliRunner().invoke(
        app,
        [
            "import",
            str(folder),
            "--only",
            "metaworld_real",
            "--only",
            "babyai_real",
            "--encodings",
            str(folder / "metaworld_encode.npy"),
            "--check",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "encoding+" in result.output and "(kept)" in result.output and "template" in result.output
    missing = CliRunner().invoke(app, ["import", str(folder), "--encodings", str(tmp_path / "none.npy")])
    assert missing.exit_code == 2 and "no such encoding file" in missing.output
    assert "Traceback" not in missing.output
    skip = CliRunner().invoke(
        app, ["import", str(folder), "--only", "babyai_real", "--unmatched", "skip", "--check"]
    )
    assert skip.exit_code == 0 and "(skipped)" in skip.output and "24 of 25" in skip.output


def test_text_keys_ignore_case_spaces_and_trailing_punctuation():
    assert (
        match_key("Go to the blue ball.") == match_key("  go to the BLUE   ball ! ") == "go to the blue ball"
    )
    assert match_key("open the door, then goto any object") != match_key("open the door then goto any object")
    assert match_key("seize the alphabet_soup") == "seize the alphabet soup"


def test_encodings_match_only_within_the_tolerance(tmp_path):
    rng = np.random.default_rng(0)
    base = rng.uniform(-0.9, 0.9, 768)
    table = {
        "a": base.astype(np.float32),
        "b": (base + 0.05).astype(np.float32),
        "task": np.stack([base - 0.05] * 3)[:, None, :].astype(np.float32),
    }  # Meta-World's (K, 1, 768)
    np.save(tmp_path / "x_encode.npy", table)
    encodings = EncodingTable([tmp_path / "x_encode.npy"])
    probes = np.stack([base + ENCODING_TOLERANCE / 2, base + 0.05, base - 0.05, base + 0.025, base * np.nan])
    assert encodings.lookup(probes.astype(np.float32)) == ["a", "b", "task", None, None]


def test_another_levels_text_is_not_taken_for_the_nearest_task_of_the_files_level():
    """The original names its MuJoCo rephrase file ``..._imaginary_easy``: its texts are those of
    goals the easy level lacks. Before 2026-12-08 the embedding rung, looking among the level's
    tasks alone, took "Run forward." for run-forward-fast and "Run backward." in a hard file for
    backward-then-forward."""
    domain = get_domain("halfcheetah")
    easy, hard = TaskResolver(domain, "easy"), TaskResolver(domain, "hard")
    for resolver, text in [(easy, "Run forward."), (easy, "Bolt forward."), (hard, "Run backward."),
                           (hard, "Jump a step forward.")]:
        found = resolver.resolve([text])
        assert found.task is None and found.rung == "unresolved", (text, found)
        assert "train level's" in found.how and f"not the {resolver.level} level's" in found.how
    assert TaskResolver(domain, "rephrase").resolve(["Run forward."]).task.id == "run-forward"  # its twin
    faster = easy.resolve(["Move ahead faster."])  # a text of the level's own goal still resolves
    assert (faster.task.id, faster.rung) == ("run-forward-fast", "embedding")
    mixed = easy.resolve(["Move forward faster.", "Run forward."])  # the level's own text decides
    assert (mixed.task.id, mixed.rung) == ("run-forward-fast", "phrasing")
