"""The D4RL-style adapter against Minari's own episodes, and a tiny BC run through a Sampler."""

import minari
import numpy as np
import pandas as pd
import pytest
from tiny import Lengths

import imaginebench_data as ib
from imaginebench_data.adapters import to_d4rl
from imaginebench_data.baselines.bc import BCSettings, train_bc
from imaginebench_data.baselines.compare import (
    compare,
    eval_episodes,
    markdown_table,
    regime_datasets,
    summary,
)
from imaginebench_data.pipeline.build import build

TRAIN = "imaginebench/clevr-train-real-v0"


def test_d4rl_rows_are_minari_steps_with_the_instruction_appended(train_set):
    import imaginebench_data as ib

    assert ib.adapters.to_d4rl is to_d4rl  # as the README writes it, no submodule import first
    data = to_d4rl(train_set, encoder=Lengths())
    row = 0
    for episode in minari.load_dataset(train_set).iterate_episodes():
        states, text = episode.observations["state"], episode.observations["instruction"][0]
        steps = len(episode.actions)
        block = slice(row, row + steps)
        np.testing.assert_array_equal(data["observations"][block, :10], states[:-1])
        np.testing.assert_array_equal(data["next_observations"][block, :10], states[1:])
        assert (data["observations"][block, 10] == len(text)).all()
        np.testing.assert_array_equal(data["actions"][block], episode.actions)
        np.testing.assert_array_equal(data["rewards"][block], episode.rewards)
        assert data["terminals"][block].tolist() == episode.terminations.tolist()
        assert data["timeouts"][block].tolist() == episode.truncations.tolist()
        row += steps
    assert row == len(data["rewards"])
    assert to_d4rl(train_set, encoder=None)["observations"].shape == (row, 10)


def test_bc_learns_the_training_set(train_set):
    sampler = ib.Sampler({train_set: 1.0}, encoder=None)
    policy, losses = train_bc(sampler, BCSettings(steps=600, batch_size=64, sample=False))
    assert losses[-1] < 0.5 * losses[0]
    transitions = sampler.datasets[0]
    chosen = [policy({"state": s, "instruction": t}) for s, t in
              zip(transitions.observations[:20], transitions.instruction_texts[:20])]
    assert all(isinstance(a, int) and 0 <= a < 40 for a in chosen)
    assert np.mean(np.array(chosen) == transitions.actions[:20]) > 0.5  # it fits the data it saw


def test_bc_samples_its_actions_reproducibly_by_seed(train_set):
    sampler = ib.Sampler({train_set: 1.0}, encoder=None)
    transitions = sampler.datasets[0]
    rows = [{"state": s, "instruction": t} for s, t in zip(transitions.observations[:50],
                                                             transitions.instruction_texts[:50])]
    runs = [train_bc(sampler, BCSettings(steps=50, batch_size=64, seed=seed))[0] for seed in (0, 0, 1)]
    argmax = train_bc(sampler, BCSettings(steps=50, batch_size=64, seed=0, sample=False))[0]
    chosen = [[policy(row) for row in rows] for policy in (*runs, argmax)]
    assert chosen[0] == chosen[1]  # the same seed draws the same actions
    assert chosen[0] != chosen[2] and chosen[0] != chosen[3]  # another seed, or no sampling, differs


def test_bc_dropout_trains_with_it_and_acts_without_it(train_set):
    """Dropout changes training (other losses from the same initial weights) but not acting:
    the trained network is in eval mode, so the same state gives the same argmax action."""
    import torch

    from imaginebench_data.baselines.bc import mlp

    torch.manual_seed(0)
    plain = mlp(12, 40, 32)
    torch.manual_seed(0)
    dropped = mlp(12, 40, 32, dropout=0.5)
    assert sum(isinstance(m, torch.nn.Dropout) for m in dropped) == 2
    for a, b in zip(plain.parameters(), dropped.parameters()):
        assert torch.equal(a, b)  # the same initial weights for a seed
    sampler = ib.Sampler({train_set: 1.0}, encoder=None)
    settings = {"steps": 200, "batch_size": 64, "sample": False}
    _, plain_losses = train_bc(sampler, BCSettings(**settings))
    policy, dropped_losses = train_bc(sampler, BCSettings(**settings, dropout=0.5))
    assert plain_losses != dropped_losses
    transitions = sampler.datasets[0]
    row = {"state": transitions.observations[0], "instruction": transitions.instruction_texts[0]}
    assert len({policy(row) for _ in range(20)}) == 1


def test_regimes_and_table():
    assert regime_datasets("clevr", "hard", "real") == {TRAIN: 1.0}
    assert regime_datasets("clevr", "hard", "real+imaginary") == {
        TRAIN: 0.5, "imaginebench/clevr-hard-imaginary-v0": 0.5}
    assert regime_datasets("clevr", "easy", "oracle") == {TRAIN: 0.5, "imaginebench/clevr-easy-real-v0": 0.5}
    with pytest.raises(ValueError, match="train level"):
        regime_datasets("clevr", "train", "oracle")
    assert eval_episodes("clevr", "hard") == 48 and eval_episodes("clevr", "train") == 80

    results = pd.DataFrame({"level": ["hard"] * 4, "regime": ["real", "real", "oracle", "oracle"],
                            "success_rate": [0.25, 0.75, 0.5, 0.5]})
    table = markdown_table(summary(results))
    assert table.splitlines()[0] == "| level | real | oracle |"
    assert table.splitlines()[2] == "| hard | 50.0% ± 35.4 | 50.0% ± 0.0 |"


def test_the_comparison_gives_the_same_rows_on_two_workers(train_set, tmp_path):
    """Runs spread over 2 spawned processes train and evaluate to the same bits as in this one,
    and come back in the order of the runs (every row's loss differs, so a swap would show)."""
    easy = "imaginebench/clevr-easy-real-v0"
    build(easy, episodes=8, workers=1, cards_dir=tmp_path / "cards", progress=False)
    runs = {"levels": ("easy",), "regimes": ("real", "oracle"), "seeds": 2, "steps": 150, "encoder": None,
            "progress": False}
    serial, spread = compare("clevr", **runs), compare("clevr", **runs, workers=2)
    columns = ["level", "regime", "seed", "success_rate", "episodes", "final_loss"]
    runs_in_order = [["real", 0], ["real", 1], ["oracle", 0], ["oracle", 1]]
    assert serial[["regime", "seed"]].values.tolist() == runs_in_order
    assert serial["final_loss"].nunique() == 4
    pd.testing.assert_frame_equal(serial[columns], spread[columns])
    with pytest.raises(ValueError, match="workers must be at least 1, got 0"):
        compare("clevr", **runs, workers=0)


def test_every_training_sees_one_thread_whatever_the_process_has(train_set, tmp_path, monkeypatch):
    """The thread count changes a training's bits (HalfCheetah's BC, 2026-12-03), so a training
    runs on BASELINE_THREADS threads in this process as in a worker, and the count is restored."""
    import torch

    import imaginebench_data.baselines.compare as compare_module

    easy = "imaginebench/clevr-easy-real-v0"
    build(easy, episodes=8, workers=1, cards_dir=tmp_path / "cards", progress=False)
    seen = []

    def counted(*args, **kwargs):
        seen.append(torch.get_num_threads())
        return train_policy(*args, **kwargs)

    train_policy = compare_module.train_policy
    monkeypatch.setattr(compare_module, "train_policy", counted)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        compare("clevr", levels=("easy",), regimes=("real",), seeds=1, steps=20, encoder=None, progress=False)
        assert seen == [compare_module.BASELINE_THREADS] == [1]
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_a_policy_is_trained_once_for_every_level_its_datasets_serve(train_set, tmp_path, monkeypatch):
    """real-only is the same training set at every level: one training per seed, evaluated at
    each level, to the rows that one training per row gives (the sampling policy's draws are
    rewound before each evaluation)."""
    import imaginebench_data.baselines.compare as compare_module

    easy = "imaginebench/clevr-easy-real-v0"
    build(easy, episodes=8, workers=1, cards_dir=tmp_path / "cards", progress=False)
    trained = []

    def counted(algo, datasets, *args, **kwargs):
        trained.append(tuple(datasets))
        return train_policy(algo, datasets, *args, **kwargs)

    train_policy = compare_module.train_policy
    monkeypatch.setattr(compare_module, "train_policy", counted)
    runs = {"regimes": ("real", "oracle"), "seeds": 2, "steps": 150, "encoder": None, "progress": False,
            "options": {"sample": True}}
    together = compare("clevr", levels=("train", "easy"), **runs)
    assert len(trained) == 4  # real x 2 seeds, oracle x 2 seeds: not 6
    assert together[["level", "regime", "seed", "trains"]].values.tolist() == [
        ["train", "real", 0, True], ["train", "real", 1, True], ["easy", "real", 0, False],
        ["easy", "real", 1, False], ["easy", "oracle", 0, True], ["easy", "oracle", 1, True]]
    apart = pd.concat([compare("clevr", levels=(level,), **runs) for level in ("train", "easy")],
                      ignore_index=True)
    assert len(trained) == 4 + 6
    columns = ["level", "regime", "seed", "success_rate", "episodes", "final_loss"]
    pd.testing.assert_frame_equal(together[columns], apart[columns])


def test_a_stopped_comparison_goes_on_from_its_journal(train_set, tmp_path, monkeypatch):
    """Each finished training's rows go to the journal; stopped (injected at the third
    training) and run again, only the trainings it lacks run, to the rows of one whole run. A
    line cut short by a kill is left out; a run asking for fewer levels, regimes or seeds reads
    its rows back, one asking for more seeds trains the new ones only, and other settings read
    nothing back."""
    import imaginebench_data.baselines.compare as compare_module

    easy = "imaginebench/clevr-easy-real-v0"
    build(easy, episodes=8, workers=1, cards_dir=tmp_path / "cards", progress=False)
    runs = {"levels": ("train", "easy"), "regimes": ("real", "oracle"), "seeds": 2, "steps": 150,
            "encoder": None, "progress": False}
    whole = compare("clevr", **runs)
    journal, trained, run = tmp_path / "clevr-bc.journal.csv", [], compare_module.train_and_evaluate

    def stopping_at(n):
        def counted(*args, **kwargs):
            if len(trained) == n:
                raise KeyboardInterrupt  # the stop
            trained.append((tuple(args[2]), args[3]))  # (datasets, seed)
            return run(*args, **kwargs)
        return counted

    monkeypatch.setattr(compare_module, "train_and_evaluate", stopping_at(2))
    with pytest.raises(KeyboardInterrupt):
        compare("clevr", **runs, journal=journal)
    kept = pd.read_csv(journal)
    assert kept[["level", "regime", "seed"]].values.tolist() == [
        ["train", "real", 0], ["easy", "real", 0], ["train", "real", 1], ["easy", "real", 1]]
    with open(journal, "a") as handle:
        handle.write("clevr,bc,easy,oracle,0,0.5,40,0.1,Tr")  # killed while writing a row, in `trains`
    flags = {cell[1:]: row["trains"] for cell, row in compare_module._read_journal(journal).items()}
    assert flags == {("train", "real", 0): True, ("easy", "real", 0): False,  # "False" read as False
                     ("train", "real", 1): True, ("easy", "real", 1): False}
    trained.clear()
    monkeypatch.setattr(compare_module, "train_and_evaluate", stopping_at(99))
    resumed = compare("clevr", **runs, journal=journal)
    assert [seed for _, seed in trained] == [0, 1] and all(len(datasets) == 2 for datasets, _ in trained)
    assert resumed.attrs["read_back"] == 2 and whole.attrs["read_back"] == 0
    columns = ["level", "regime", "seed", "success_rate", "episodes", "final_loss", "trains"]
    pd.testing.assert_frame_equal(resumed[columns], whole[columns])
    assert len(pd.read_csv(journal)) == 6  # every row, the cut line gone
    columns.remove("trains")  # which row trained a shared policy depends on the levels asked for
    trained.clear()
    for fewer in ({"levels": ("easy",)}, {"regimes": ("oracle",)}, {"seeds": 1}):
        part = compare("clevr", **{**runs, **fewer}, journal=journal)  # keyed by training: all read back
        assert trained == [] and part.attrs["read_back"] == len(part.drop_duplicates(["regime", "seed"]))
        assert part["trains"].sum() == part.attrs["read_back"]  # one row of each training marked
        pd.testing.assert_frame_equal(part[columns], whole.merge(part[["level", "regime", "seed"]])[columns])
    assert len(pd.read_csv(journal)) == 6  # rows of the same trainings the run did not ask for are kept
    compare("clevr", **{**runs, "seeds": 3}, journal=journal)
    assert [seed for _, seed in trained] == [2, 2]  # more seeds: only the new ones train
    trained.clear()
    compare("clevr", **{**runs, "steps": 100}, journal=journal)
    assert len(trained) == 4  # other settings: every training runs again
    journal.write_text("level,success_rate\neasy,0.5\n")
    with pytest.raises(ValueError, match="journal .* found the columns level, success_rate; delete it"):
        compare("clevr", **runs, journal=journal)
    for text in ("settings\n", "level,regime,seed,settings\neasy,real,0,key\n", '"cut\n'):
        journal.write_text(text)
        with pytest.raises(ValueError, match="expected a comparison's journal"):
            compare_module._read_journal(journal)
    rng = np.random.default_rng(0)
    for _ in range(20):  # whatever bytes stand there: a line naming the file, or rows read back
        journal.write_bytes(rng.integers(0, 256, int(rng.integers(0, 400)), dtype=np.uint8).tobytes())
        try:
            compare_module._read_journal(journal)
        except ValueError as error:
            assert str(error).startswith(f"{journal}: expected a comparison's journal")


def test_rewinding_a_sampling_bc_policy_replays_its_draws(train_set):
    sampler = ib.Sampler({train_set: 1.0}, encoder=Lengths())
    policy, _ = train_bc(sampler, BCSettings(steps=30, seed=3, sample=True))
    rows = np.repeat(policy.features({"state": sampler.datasets[0].observations[0],
                                      "instruction": sampler.datasets[0].instruction_texts[0]}), 300, 0)
    first = policy.act(rows)
    assert len(set(first)) > 1  # drawn, not the argmax: 30 steps leave the softmax wide
    assert not np.array_equal(policy.act(rows), first)
    policy.rewind()
    np.testing.assert_array_equal(policy.act(rows), first)


def test_torchrl_buffer_holds_the_real_data_where_torchrl_own_loader_fails(train_set, tmp_path):
    pytest.importorskip("torchrl")
    from torchrl.data.datasets import MinariExperienceReplay

    from imaginebench_data.adapters.torchrl import to_tensordict, to_torchrl

    data = to_d4rl(train_set, encoder=Lengths())
    td = to_tensordict(train_set, encoder=Lengths())
    np.testing.assert_array_equal(td["observation"].numpy(), data["observations"])
    np.testing.assert_array_equal(td["next", "observation"].numpy(), data["next_observations"])
    np.testing.assert_array_equal(td["next", "reward"].numpy()[:, 0], data["rewards"])
    assert td["next", "done"].sum() == 12  # one end per episode
    batch = to_torchrl(train_set, batch_size=32, encoder=Lengths()).sample()
    assert batch["observation"].shape == (32, 12) and batch["observation"].abs().sum() > 0
    # TorchRL's own loader cannot even read this local dataset (Dict observation with Text):
    with pytest.raises(RuntimeError, match="batch size"):
        MinariExperienceReplay(train_set, batch_size=32, root=tmp_path / "torchrl", download=False,
                               load_from_local_minari=True)


def test_state_statistics_weight_each_dataset_by_its_share_of_a_batch():
    from types import SimpleNamespace

    from imaginebench_data.baselines.bc import state_statistics

    first = np.array([[0.0, 1.0], [2.0, 1.0]], np.float32)
    second = np.array([[10.0, 1.0], [20.0, 1.0], [99.0, 1.0]], np.float32)
    datasets = [SimpleNamespace(observations=first), SimpleNamespace(observations=second)]
    sampler = SimpleNamespace(datasets=datasets,
                              valid=[np.array([0, 1]), np.array([0, 1])],  # row 2 filtered out
                              ratios=np.array([0.25, 0.75]))
    mean, std = state_statistics(sampler)
    rows = np.concatenate([first, second[:2]])
    weights = np.array([0.125, 0.125, 0.375, 0.375])  # each row's chance of being drawn
    expected = np.average(rows, axis=0, weights=weights)
    spread = np.sqrt(np.average((rows - expected) ** 2, axis=0, weights=weights))
    np.testing.assert_allclose(mean, expected, rtol=1e-6)
    np.testing.assert_allclose(std, spread + 1e-3, rtol=1e-6)
    assert std[1] == pytest.approx(1e-3)  # a constant column divides by 1e-3, not by zero


def test_bc_standardizes_states_only_when_asked(train_set):
    import torch

    from imaginebench_data.baselines.bc import StateInput

    sampler = ib.Sampler({train_set: 1.0}, encoder=Lengths())
    settings = {"steps": 20, "batch_size": 64}
    plain = train_bc(sampler, BCSettings(**settings))[0].network
    assert isinstance(plain[0], torch.nn.Linear) and plain[0].in_features == 12  # the network of before
    network = train_bc(sampler, BCSettings(**settings, normalize=True))[0].network
    first = network[0]
    assert isinstance(first, StateInput)
    states = sampler.datasets[0].observations
    rows = torch.from_numpy(np.concatenate([states, np.full((len(states), 2), 7.0, np.float32)], 1))
    seen = first(rows).numpy()
    np.testing.assert_allclose(seen[:, :10].mean(0), 0.0, atol=1e-4)
    assert np.all(np.abs(seen[:, :10].std(0) - 1.0) < 0.01)  # std + 1e-3: a hair under 1
    assert (seen[:, 10:] == 7.0).all()  # the instruction embedding passes unchanged


@pytest.fixture
def cheetah_set(minari_root, tmp_path):
    dataset = "imaginebench/halfcheetah-train-real-v0"
    build(dataset, episodes=4, workers=1, cards_dir=tmp_path / "cards", progress=False)
    return dataset


def test_bc_without_history_does_not_see_the_history_columns(cheetah_set):
    from imaginebench_data.domains.halfcheetah.layout import DX, PEAK, TIME, TROUGH, X

    sampler = ib.Sampler({cheetah_set: 1.0}, encoder=None)
    settings = {"steps": 30, "batch_size": 64}
    blind = train_bc(sampler, BCSettings(**settings, history=False))[0]
    seeing = train_bc(sampler, BCSettings(**settings))[0]
    assert blind.network[0].keep.tolist() == [c for c in range(22) if c not in (X, TIME, PEAK, TROUGH)]
    state = sampler.datasets[0].observations[40].copy()
    moved = state.copy()
    moved[[X, TIME, PEAK, TROUGH]] += np.array([5.0, 2.0, 6.0, -1.0], np.float32)
    pushed = state.copy()
    pushed[DX] += 0.5
    act = {name: [policy({"state": s, "instruction": "Run forward."}) for s in (state, moved, pushed)]
           for name, policy in (("blind", blind), ("seeing", seeing))}
    np.testing.assert_array_equal(act["blind"][0], act["blind"][1])  # the history changed: no effect
    assert not np.array_equal(act["blind"][0], act["blind"][2])  # the physics changed: an effect
    assert not np.array_equal(act["seeing"][0], act["seeing"][1])  # with the history in view, an effect


def test_bc_with_action_bins_acts_on_the_bins_and_learns_them(cheetah_set, train_set):
    import torch

    from imaginebench_data.core.action_bins import ActionBins

    space = ib.get_domain("halfcheetah").action_space
    bins = ActionBins(space.low, space.high, 5)  # -1, -0.5, 0, 0.5, 1
    actions = torch.tensor([[-1.0, -0.74, -0.24, 0.0, 0.3, 1.0]])
    assert bins.index(actions).tolist() == [[0, 1, 2, 2, 3, 4]]  # the nearest value
    sampler = ib.Sampler({cheetah_set: 1.0}, encoder=None)
    settings = {"steps": 300, "batch_size": 64, "bins": 21}
    policy, losses = train_bc(sampler, BCSettings(**settings))
    assert policy.network[-1].out_features == 6 * 21
    assert losses[-1] < 0.7 * losses[0]
    rows = [{"state": s, "instruction": "Run forward."} for s in sampler.datasets[0].observations[:30]]
    chosen = np.array([policy(row) for row in rows])
    values = np.linspace(-1.0, 1.0, 21).astype(np.float32)
    assert np.abs(chosen[..., None] - values).min(-1).max() < 1e-6  # every number is a bin's value
    again = train_bc(sampler, BCSettings(**settings))[0]
    np.testing.assert_array_equal(chosen, np.array([again(row) for row in rows]))  # seeded draws
    argmax = train_bc(sampler, BCSettings(**settings, sample=False))[0]
    assert not np.array_equal(chosen, np.array([argmax(row) for row in rows]))
    with pytest.raises(ValueError, match="continuous actions"):
        train_bc(ib.Sampler({train_set: 1.0}, encoder=None), BCSettings(steps=1, bins=5))
