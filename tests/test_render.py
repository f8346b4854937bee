"""Rendering as a user meets it: every domain's env draws its state, stored states (real or
imagined) are drawn by putting the simulator in them, `imaginebench render` writes a strip or
a GIF, and a card shows one episode."""

import dataclasses
import json

import numpy as np
import pytest
from PIL import Image
from tiny import built_root
from typer.testing import CliRunner

import imaginebench_data as ib
from imaginebench_data.cli import app
from imaginebench_data.core.gl import default_mujoco_gl
from imaginebench_data.core.render import draw_state, mujoco_rendering_problem
from imaginebench_data.drawing import frame_steps
from imaginebench_data.drawing.images import BAND, GAP

SHAPES = {"clevr": (256, 256, 3), "babyai": (256, 480, 3), "halfcheetah": (240, 320, 3),
          "metaworld": (240, 320, 3), "libero": (240, 320, 3)}
MUJOCO = {"clevr", "halfcheetah", "metaworld", "libero"}  # BabyAI draws with minigrid, no OpenGL
HARD = "imaginebench/clevr-hard-real-v0"
IMAGINED = "imaginebench/clevr-hard-imaginary-v0"


def needs_mujoco_rendering():
    problem = mujoco_rendering_problem()
    if problem is not None:
        pytest.skip(f"MuJoCo cannot render offscreen on this machine (install libosmesa6): {problem}")


def difference(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a.astype(np.int16) - b.astype(np.int16)).mean())


def changed_pixels(a: np.ndarray, b: np.ndarray) -> float:
    """The share of pixels that differ at all."""
    return float((a != b).any(axis=-1).mean())


@pytest.fixture(scope="module", params=sorted(SHAPES))
def env(request):
    if request.param in MUJOCO:
        needs_mujoco_rendering()
    env = ib.make_env(request.param, "train", render_mode="rgb_array")
    yield env
    env.close()


def test_env_renders_its_state_and_stored_states_are_drawn_exactly(env):
    domain, sim = env.unwrapped.domain, env.unwrapped.sim
    obs, _ = env.reset(seed=0)
    first = env.render()
    state, sim_state, task = obs["state"], sim.get_sim_state(), env.unwrapped.task
    assert first.shape == SHAPES[domain.name] and first.dtype == np.uint8
    obs, _ = env.reset(seed=1)
    second = env.render()
    assert second.shape == first.shape and second.dtype == np.uint8
    assert changed_pixels(first, second) > 0.001  # another scene, another picture (Meta-World: 0.3%)
    assert np.array_equal(env.render(), second)  # the same state, the same picture
    # The first state, stored, is put back into the simulator (its full state where the domain
    # stores one, the dataset state otherwise) and drawn as the live env drew it. (After a
    # MuJoCo step the body poses lag the joints by that step, ~1e-7 m in LIBERO: a pixel or two.)
    assert changed_pixels(draw_state(domain, sim, task, state, sim_state), first) < 0.001


def test_an_imagined_state_is_drawn_from_its_numbers_alone(env):
    """Imagined data has no simulator state: the simulator is rebuilt from the dataset state.
    Exact for CLEVR and BabyAI (the state is everything); for the others the picture is closer
    to the live one of that state than to another scene's."""
    domain, sim = env.unwrapped.domain, env.unwrapped.sim
    obs, _ = env.reset(seed=2)
    for _ in range(3):
        obs, *_ = env.step(env.action_space.sample())
    live, state, task = env.render(), obs["state"], env.unwrapped.task
    other_obs, _ = env.reset(seed=3)
    other = env.render()
    drawn = draw_state(domain, sim, task, state)
    assert drawn.shape == live.shape and drawn.dtype == np.uint8
    if sim.get_sim_state() is None:
        assert np.array_equal(drawn, live)
    else:
        assert difference(drawn, live) < difference(drawn, other)


def test_an_imagined_episode_is_drawn_the_same_whatever_was_drawn_before(env):
    """An imagined episode's frames are rebuilt from its states alone; they start from one fixed
    scene (Simulator.start_rebuilds), so the picture does not depend on the simulator's past.
    (Until 2026-12-07 Meta-World settled the arm's joints from wherever the last picture left
    them: 11-13% of a card picture's pixels changed with what was drawn before.)"""
    from imaginebench_data.core.episode import Episode
    from imaginebench_data.drawing import episode_frames

    domain, sim = env.unwrapped.domain, env.unwrapped.sim
    obs, _ = env.reset(seed=4)
    states = [obs["state"]]
    actions = []
    for _ in range(4):
        actions.append(env.action_space.sample())
        obs, *_ = env.step(actions[-1])
        states.append(obs["state"])
    task = env.unwrapped.task
    episode = Episode(states=np.stack(states), actions=np.stack(actions), rewards=np.zeros(4, np.float32),
                      terminations=np.zeros(4, bool), truncations=np.r_[np.zeros(3, bool), True],
                      instruction=task.phrasings[0], task_id=task.id, level=task.level,
                      phrasing_id=0, seed=4, source="imaginary")
    first = episode_frames(domain, episode, [0, 4], sim)
    for seed in (5, 6):  # the simulator goes somewhere else: other scenes, the arm moved
        env.reset(seed=seed)
        for _ in range(20):
            env.step(env.action_space.sample())
    again = episode_frames(domain, episode, [0, 4], sim)
    for before, after in zip(first, again, strict=True):
        assert np.array_equal(before, after)


def test_a_domain_without_renderer_refuses_the_render_mode(monkeypatch):
    from imaginebench_data import domains
    from imaginebench_data.core.env import ImagineEnv

    plain = dataclasses.replace(ib.get_domain("clevr"), name="clevr-unrendered", render=None)
    monkeypatch.setitem(domains._registered, plain.name, plain)  # for this test only
    with pytest.raises(ValueError, match="no renderer"):
        ImagineEnv("clevr-unrendered", render_mode="rgb_array")
    with pytest.raises(ValueError, match="render_mode must be"):
        ImagineEnv("clevr", render_mode="human")
    assert ImagineEnv("clevr-unrendered").render() is None


@pytest.mark.parametrize("environ, gpu, osmesa, egl, expected", [
    ({}, False, True, False, "osmesa"),                       # headless, no GPU: software rendering
    ({}, False, True, True, "osmesa"),                        # libEGL but no GPU: still software
    ({"MUJOCO_GL": "egl"}, False, True, False, None),         # the user's choice stands
    ({"MUJOCO_GL": "glfw"}, True, True, True, None),
    ({"DISPLAY": ":0"}, True, True, True, None),              # a display: MuJoCo's default (GLFW)
    ({}, True, True, True, "egl"),                            # a headless GPU renders through EGL
    ({}, True, False, True, "egl"),
    ({}, True, True, False, "osmesa"),                        # a GPU without libEGL: software
    ({}, True, False, False, None),                           # no library: import mujoco must not fail
    ({}, False, False, True, None),
    ({"PYOPENGL_PLATFORM": "egl"}, False, True, False, None),  # MuJoCo refuses OSMesa then
    ({"PYOPENGL_PLATFORM": "osmesa"}, True, True, True, "osmesa"),
    ({"PYOPENGL_PLATFORM": "EGL"}, True, True, True, "egl"),
])
def test_mujoco_gl_defaults_to_egl_on_a_headless_gpu_else_osmesa(environ, gpu, osmesa, egl, expected):
    assert default_mujoco_gl(environ, gpu=gpu, osmesa=osmesa, egl=egl) == expected


# --- stored episodes: `imaginebench render` and the card ----------------------------------
@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A Minari root with 2 real CLEVR hard episodes and an 'imagined' dataset made from them
    (states moved off the simulator's path: every ball shifted by 5 cm, then re-checked)."""
    needs_mujoco_rendering()
    from imaginebench_data.datasets.ids import DatasetId
    from imaginebench_data.datasets.read import open_dataset, stored_episodes
    from imaginebench_data.pipeline.publish import publish
    from imaginebench_data.quality.checkers import annotate

    with built_root(tmp_path_factory, HARD, 2) as root:
        clevr = ib.get_domain("clevr")
        dataset, _ = open_dataset(HARD)
        imagined = []
        for episode in stored_episodes(dataset, clevr):
            episode.states = episode.states + np.float32(0.05)
            episode.source, episode.infos = "imaginary", {}
            imagined.append(annotate(clevr, episode, clevr.simulator()))
        publish(DatasetId.parse(IMAGINED), imagined, clevr, scale="test", provenance=dict,
                description="test", cards_dir=root / "cards", progress=False)
        yield root


def strip_size(frames: int, height: int = 256, width: int = 256) -> tuple[int, int]:
    """(width, height) of a PNG strip of ``frames`` CLEVR frames (see drawing/images.py)."""
    return width * frames + GAP * (frames - 1), height + 2 * BAND


@pytest.mark.parametrize("dataset_id", [HARD, IMAGINED])
def test_render_writes_a_strip_of_a_stored_episode(stored, tmp_path, dataset_id):
    from imaginebench_data.datasets.read import open_dataset, stored_episodes

    dataset, _ = open_dataset(dataset_id)
    length = len(list(stored_episodes(dataset, ib.get_domain("clevr"), positions=[1]))[0])
    out = tmp_path / "strip.png"
    result = CliRunner().invoke(app, ["render", dataset_id, "--episode", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    image = Image.open(out)
    assert image.format == "PNG" and image.mode == "RGB"
    assert image.size == strip_size(len(frame_steps(length)))
    assert len(frame_steps(length)) == min(8, length + 1) and frame_steps(length)[-1] == length
    every = CliRunner().invoke(app, ["render", dataset_id, "--episode", "1", "--every", "1",
                                     "--out", str(tmp_path / "all.png")])
    assert every.exit_code == 0 and Image.open(tmp_path / "all.png").size == strip_size(length + 1)


def test_render_draws_the_imagined_states_not_the_real_ones(stored, tmp_path):
    runner = CliRunner()
    for dataset_id, name in ((HARD, "real.png"), (IMAGINED, "imagined.png")):
        assert runner.invoke(app, ["render", dataset_id, "--episode", "0", "--every", "1",
                                   "--out", str(tmp_path / name)]).exit_code == 0
    real, imagined = (np.asarray(Image.open(tmp_path / name)) for name in ("real.png", "imagined.png"))
    assert real.shape == imagined.shape
    frames = slice(2 * BAND, None)  # below the title and the labels (the titles differ anyway)
    assert difference(real[frames], imagined[frames]) > 0.3  # balls 5 cm apart: another picture


def test_render_writes_a_gif_of_every_state(stored, tmp_path, monkeypatch):
    from imaginebench_data.datasets.read import open_dataset, stored_episodes

    dataset, _ = open_dataset(IMAGINED)
    length = len(next(stored_episodes(dataset, ib.get_domain("clevr"))))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["render", IMAGINED, "--episode", "0", "--gif"])
    assert result.exit_code == 0, result.output
    gif = Image.open(tmp_path / "clevr-hard-imaginary-v0-episode0.gif")
    assert gif.format == "GIF" and gif.n_frames == length + 1 and gif.size == (256, 256 + BAND)


@pytest.mark.parametrize("args, message", [
    (["--episode", "2"], f"error: episode 2 is out of range: {HARD} has 2 episodes (0 to 1)"),
    (["--episode", "-1"], "error: episode -1 is out of range"),
    (["--episode", "0", "--every", "0"], "error: --every must be at least 1, got 0"),
    (["--episode", "0", "--out", "/dev/null/x.png"], "error: --out /dev/null: expected a folder"),
    (["--episode", "0", "--out", "x.jpg"], "error: x.jpg: expected a file name ending in .png"),
    (["--episode", "0", "--gif", "--out", "x.png"], "error: x.png: expected a file name ending in .gif"),
])
def test_render_mistakes_are_one_line_with_exit_code_2(stored, args, message):
    result = CliRunner().invoke(app, ["render", HARD, *args])
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message) and "Traceback" not in result.output


def test_render_into_a_folder_writes_the_default_name_there(stored, tmp_path):
    """Found by trying it (2026-12-06): `--out FOLDER` ended in an IsADirectoryError traceback."""
    result = CliRunner().invoke(app, ["render", HARD, "--episode", "1", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert Image.open(tmp_path / "clevr-hard-real-v0-episode1.png").format == "PNG"


@pytest.mark.parametrize("out", ["new/deeper/", "new/deeper", "new/deeper/x.png"])
def test_render_makes_the_folders_it_is_given(stored, tmp_path, out):
    """Found 2026-12-06: `--out newdir/` was refused as a file name without .png."""
    result = CliRunner().invoke(app, ["render", HARD, "--episode", "1", "--out", str(tmp_path / out)])
    assert result.exit_code == 0, result.output
    name = "x.png" if out.endswith(".png") else "clevr-hard-real-v0-episode1.png"
    assert Image.open(tmp_path / "new" / "deeper" / name).format == "PNG"


def test_render_makes_no_folder_when_it_fails(stored, tmp_path):
    result = CliRunner().invoke(app, ["render", HARD, "--episode", "7", "--out", str(tmp_path / "new")])
    assert result.exit_code == 2 and "out of range" in result.output
    assert not (tmp_path / "new").exists()


def test_render_of_an_unknown_dataset_is_one_line(minari_root):
    result = CliRunner().invoke(app, ["render", "imaginebench/clevr-easy-real-v0", "--episode", "0"])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert "not found" in result.output


def test_the_card_shows_its_first_episode(stored, tmp_path):
    result = CliRunner().invoke(app, ["card", IMAGINED, "--cards-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    picture = tmp_path / "clevr-hard-imaginary-v0-episode.png"
    assert f"wrote {picture}" in result.output.replace("\n", "")
    assert Image.open(picture).size[1] == 256 + 2 * BAND
    assert "![the first episode of clevr-hard-imaginary-v0](clevr-hard-imaginary-v0-episode.png)" in \
        (tmp_path / "clevr-hard-imaginary-v0.md").read_text()
    card = json.loads((tmp_path / "clevr-hard-imaginary-v0.json").read_text())
    assert card["source"] == "imaginary" and card["episodes"] == 2
