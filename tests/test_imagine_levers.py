"""Grounding's opt-in levers: state columns the model never sees (the domain's history columns,
the columns training never varied), short sequences batched apart, continuous actions predicted
as bins."""

import dataclasses
import json
from collections import Counter
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from imagine_helpers import CLEVR, tiny_config, tiny_model

from imaginebench_data.domains import get_domain
from imaginebench_data.imagine.backbone import slot_token_id
from imaginebench_data.imagine.config import GroundingConfig
from imaginebench_data.imagine.data import SequenceFactory, collate, split
from imaginebench_data.imagine.sequences import ACTION, STATE, rollout_sequence
from imaginebench_data.imagine.train import (
    SHORT,
    TrainSettings,
    backward_parts,
    epoch_batches,
    hidden_columns,
    length_parts,
    minimised,
    unseen_columns,
)


def test_hidden_columns_do_not_change_what_the_model_sees():
    model = tiny_model(hidden_columns=[7, 9])
    states = torch.randn(4, 10, generator=torch.Generator().manual_seed(0))
    changed = states.clone()
    changed[:, [7, 9]] += 5.0
    assert torch.equal(model.embed_states(states), model.embed_states(changed))
    changed[:, 8] += 1.0  # a column it does see
    assert not torch.allclose(model.embed_states(states), model.embed_states(changed))


def test_hidden_columns_are_seen_as_their_mean():
    model = tiny_model(hidden_columns=[2])
    plain = tiny_model()  # the same weights (same seed), every column seen
    states = torch.randn(3, 10, generator=torch.Generator().manual_seed(1))
    at_mean = states.clone()
    at_mean[:, 2] = model.state_mean[2]
    assert torch.equal(model.embed_states(states), plain.embed_states(at_mean))
    assert not torch.allclose(plain.embed_states(states), plain.embed_states(at_mean))


def test_config_file_names_hidden_columns_only_where_there_are_some(tmp_path):
    tiny_config().save(tmp_path / "plain.json")
    assert "hidden_columns" not in json.loads((tmp_path / "plain.json").read_text())
    assert GroundingConfig.load(tmp_path / "plain.json").hidden_columns == []
    tiny_config(hidden_columns=[3, 4]).save(tmp_path / "hidden.json")
    assert GroundingConfig.load(tmp_path / "hidden.json").hidden_columns == [3, 4]


def test_opt_in_levers_leave_the_checkpoint_key_of_before():
    # the key names the checkpoint folders that committed cards cite: off, the levers are not in it
    before = {"epochs", "batch_size", "lr", "weight_decay", "warmup_steps", "dynamics_per_episode", "seed",
              "precision"}
    assert set(TrainSettings().key()) == before
    assert TrainSettings(hide_history=True).key()["hide_history"] is True
    assert set(TrainSettings(short_apart=True).key()) == before | {"short_apart"}
    assert set(TrainSettings(action_weight=1.0).key()) == before
    assert set(TrainSettings(length_pool=8).key()) == before | {"length_pool"}
    assert TrainSettings(action_weight=10.0).key()["action_weight"] == 10.0
    # a batch run in parts trains what the whole batch trains: the same folder, found by either
    assert TrainSettings(length_split=2).key() == TrainSettings().key()


def test_action_weight_scales_the_action_loss_gradient_alone():
    model = tiny_model()
    weights = dict(model.named_parameters())
    losses = {"state": weights["state_head.weight"].square().sum(),
              "action": weights["action_head.weight"].square().sum(),
              "text": torch.zeros(())}
    # at 1 the plain sum, the same bits as before the lever
    assert torch.equal(minimised(losses, 1.0), losses["state"] + losses["action"] + losses["text"])
    heads = [weights["state_head.weight"], weights["action_head.weight"]]
    plain = torch.autograd.grad(minimised(losses, 1.0), heads, retain_graph=True)
    heavy = torch.autograd.grad(minimised(losses, 10.0), heads)
    assert torch.equal(heavy[0], plain[0])  # the state head's gradient is untouched
    assert torch.allclose(heavy[1], 10 * plain[1])


def test_one_step_rollouts_pair_each_state_with_its_own_action_and_next_state():
    model = tiny_model()
    factory = SequenceFactory(model.tokenizer, slot_token_id(model.tokenizer), 10, (), np.int64,
                              lambda text: None)
    task = CLEVR.tasks("train")[0]
    episodes = [SimpleNamespace(task_id=task.id, instruction=task.phrasings[0],
                                states=np.arange(6 * 10, dtype=np.float32).reshape(6, 10) + 100 * e,
                                actions=np.arange(5) + 10 * e) for e in range(3)]
    phrasings = {task.id: task.phrasings}
    plain = factory.epoch(episodes, phrasings, np.random.default_rng(4), dynamics_per_episode=2)
    stepped = factory.epoch(episodes, phrasings, np.random.default_rng(4), dynamics_per_episode=2,
                            steps_per_episode=3)
    assert len(plain) == 3 * 4 and len(stepped) == 3 * 7
    for before, after in zip(plain[:4], stepped[:4]):  # the first episode's draws come first
        assert np.array_equal(before.ids, after.ids) and np.array_equal(before.states, after.states)
    for e, episode in enumerate(episodes):
        for seq in stepped[7 * e + 4 : 7 * e + 7]:
            state_slots = np.flatnonzero(seq.kind == STATE)
            assert len(state_slots) == 2 and seq.action_mask.sum() == 1 and seq.state_mask.sum() == 1
            t = int(np.flatnonzero((episode.states == seq.states[state_slots[0]]).all(1))[0])
            assert np.array_equal(seq.states[state_slots[1]], episode.states[t + 1])
            assert seq.action_target[seq.action_mask][0] == episode.actions[t]  # s_t predicts a_t
            assert seq.actions[seq.kind == ACTION][0] == episode.actions[t]
            # a_t predicts s_t+1, relative to s_t
            assert np.array_equal(seq.state_target[seq.state_mask][0], episode.states[t + 1])
            assert np.array_equal(seq.state_base[seq.state_mask][0], episode.states[t])
            assert len(seq) <= SHORT  # the prompt and one step: with short_apart, batched apart from rollouts


def test_a_batch_run_in_parts_of_like_lengths_gives_the_whole_batch_s_losses_and_gradient():
    model = tiny_model()
    factory = SequenceFactory(model.tokenizer, slot_token_id(model.tokenizer), 10, (), np.int64,
                              lambda text: None)
    task = CLEVR.tasks("train")[0]
    rng = np.random.default_rng(3)
    episodes = [SimpleNamespace(task_id=task.id, instruction=task.phrasings[0],
                                states=rng.normal(size=(n + 1, 10)).astype(np.float32),
                                actions=rng.integers(0, 40, size=n)) for n in (2, 9, 5, 14)]
    sequences = factory.epoch(episodes, {task.id: task.phrasings}, rng, dynamics_per_episode=2)
    lengths = [len(seq) for seq in sequences]
    indices = list(range(len(sequences)))

    def gradient(parts):
        model.zero_grad()
        batches = [collate([sequences[i] for i in part], model.tokenizer.pad_token_id, 256, None)
                   for part in parts]
        losses = backward_parts(batches, model.losses, 1.0, torch.Tensor.backward)
        return losses, [p.grad.clone() for p in model.parameters() if p.grad is not None]

    assert length_parts(indices, lengths, 1) == [indices]
    parts = length_parts(indices, lengths, 3)
    assert sorted(i for part in parts for i in part) == indices and [len(p) for p in parts] == [6, 5, 5]
    assert max(lengths[i] for i in parts[0]) <= min(lengths[i] for i in parts[1])  # sorted by length
    whole_losses, whole = gradient([indices])
    split_losses, split = gradient(parts)
    for key in whole_losses:
        torch.testing.assert_close(split_losses[key], whole_losses[key], rtol=1e-5, atol=1e-6)
    assert len(split) == len(whole)
    for a, b in zip(split, whole):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)
    # unweighted, the parts' means would not be the batch's
    plain = sum(model.losses(collate([sequences[i] for i in part], model.tokenizer.pad_token_id, 256,
                                     None))["state"].detach() for part in parts)
    assert not torch.allclose(plain, whole_losses["state"], rtol=1e-2)


def test_parts_of_like_lengths_are_refused_on_several_processes(monkeypatch, tmp_path):
    from imaginebench_data.imagine import train

    monkeypatch.setattr(train, "data_parallel", lambda: SimpleNamespace(processes=2, device="cpu"))
    with pytest.raises(ValueError, match="--length-split runs on one process, found 2"):
        train.train_grounding(CLEVR_TRAIN, tmp_path, settings=TrainSettings(length_split=2), progress=False)
    assert not any(tmp_path.iterdir())


def episodes_with(*columns: np.ndarray) -> list[SimpleNamespace]:
    """Episodes whose states are the given (T, D) arrays."""
    return [SimpleNamespace(states=np.asarray(c, dtype=np.float32)) for c in columns]


def test_unseen_columns_are_those_constant_in_every_training_state():
    rng = np.random.default_rng(0)
    first, second = rng.normal(size=(5, 6)), rng.normal(size=(7, 6))
    first[:, [1, 4]] = second[:, [1, 4]] = (0.25, 0.0)  # constant in both episodes
    first[:, 2], second[:, 2] = 1.0, 2.0  # constant within each episode, not across them
    first[:, 5] = second[:, 5] = 3.0
    second[3, 5] = 3.5  # constant but for one state of the second episode
    assert unseen_columns(episodes_with(first, second)) == [1, 4]


def test_hidden_columns_join_the_levers_that_are_on():
    states = np.zeros((4, 10))
    states[:, 0] = np.arange(4)  # only column 0 varies
    episodes = episodes_with(states)
    domain = dataclasses.replace(CLEVR, history_columns=(0, 1))
    assert hidden_columns(domain, TrainSettings(), episodes) == []
    assert hidden_columns(domain, TrainSettings(hide_history=True), episodes) == [0, 1]
    assert hidden_columns(domain, TrainSettings(hide_unseen=True), episodes) == list(range(1, 10))
    both = TrainSettings(hide_history=True, hide_unseen=True)
    assert hidden_columns(domain, both, episodes) == list(range(10))


def test_a_domains_grounding_levers_are_on_unless_switched_off():
    for name in ("metaworld", "libero"):
        levered = TrainSettings.for_domain(get_domain(name), epochs=5)
        assert levered.hide_unseen and levered.epochs == 5 and levered.key()["hide_unseen"] is True
        assert not TrainSettings.for_domain(get_domain(name), hide_unseen=False).hide_unseen
    # lr None is the default, not an override
    assert TrainSettings.for_domain(get_domain("metaworld"), lr=None).lr is None
    for name in ("clevr", "babyai", "halfcheetah"):  # their checkpoint folders stay
        assert TrainSettings.for_domain(get_domain(name), epochs=20).key() == TrainSettings().key()
    metaworld = TrainSettings.for_domain(get_domain("metaworld"), epochs=20)
    assert (metaworld.short_apart, metaworld.steps_per_episode) == (True, 16) and metaworld.holdout_per_task
    assert TrainSettings.for_domain(get_domain("metaworld"), steps_per_episode=0).steps_per_episode == 0
    libero = TrainSettings.for_domain(get_domain("libero"), epochs=20)
    assert (libero.short_apart, libero.steps_per_episode, libero.holdout_per_task) == (False, 0, False)


def tasks_in_turn(n_tasks: int, episodes: int) -> list:
    """Episodes as the recipes order them: task ``i % n_tasks`` for episode ``i``."""
    return [SimpleNamespace(task_id=f"task-{i % n_tasks}", index=i) for i in range(episodes)]


@pytest.mark.parametrize("n_tasks", [10, 80, 4, 7])
def test_per_task_holdout_holds_out_every_tenth_episode_of_each_task(n_tasks):
    episodes = tasks_in_turn(n_tasks, 20 * n_tasks)
    kept, held = split(episodes, per_task=True)
    assert len(kept) + len(held) == len(episodes) and len(held) == 2 * n_tasks
    for task in {e.task_id for e in episodes}:
        mine = [e.index for e in episodes if e.task_id == task]
        assert [e.index for e in held if e.task_id == task] == [mine[9], mine[19]]
    assert {e.index for e in kept} | {e.index for e in held} == set(range(len(episodes)))


def test_plain_holdout_hides_whole_tasks_when_they_cycle_with_it():
    # the reason for the lever: 10 tasks in turn, every 10th episode held out -> one task never trained on
    kept, held = split(tasks_in_turn(10, 200))
    assert {e.task_id for e in held} == {"task-9"} and "task-9" not in {e.task_id for e in kept}
    kept, held = split(tasks_in_turn(7, 210))  # no common factor: every task is held out alike
    assert sorted(Counter(e.task_id for e in held).values()) == [3] * 7
    assert [e.index for e in split(tasks_in_turn(7, 30), per_task=False)[1]] == [9, 19, 29]


def test_cards_name_the_training_levers_that_were_on():
    from imaginebench_data.imagine.checkpoints import _levers

    # training.json's settings: every field; the hidden columns have their own line on the card
    assert _levers(dataclasses.asdict(TrainSettings(hide_unseen=True))) == {}  # cards of before: as they were
    on = dataclasses.asdict(TrainSettings(hide_unseen=True, short_apart=True, steps_per_episode=16))
    assert _levers(on) == {"training_levers": {"short_apart": True, "steps_per_episode": 16}}
    on["holdout_per_task"] = True
    assert _levers(on)["training_levers"]["holdout_per_task"] is True


def test_short_apart_batches_short_and_long_sequences_apart():
    lengths = [10, 300, 12, 40, 41, 500, 8, 9, 200, 15]
    order = np.random.default_rng(0).permutation(len(lengths))
    plain = epoch_batches(lengths, order, 3, False, np.random.default_rng(1))
    assert plain == [list(order[k : k + 3]) for k in range(0, 10, 3)]  # as before: the order, chunked
    batches = epoch_batches(lengths, order, 3, True, np.random.default_rng(1))
    assert sorted(i for b in batches for i in b) == list(range(10))  # every sequence once
    for batch in batches:
        short = [lengths[i] <= SHORT for i in batch]
        assert all(short) or not any(short)
    assert sum(1 for b in batches if lengths[b[0]] <= SHORT) == 2  # 6 short in batches of 3
    assert len(batches) == len(plain) == 4  # 4 long + 6 short: 2 + 2 batches, as plain's 4
    uneven = epoch_batches(lengths[:9], order[order < 9], 3, True, np.random.default_rng(1))
    assert len(uneven) == 4 > -(-9 // 3)  # 4 long + 5 short: 2 + 2 batches, one more than plain's 3


def test_length_pools_sort_each_pool_by_length_and_keep_the_batch_count():
    rng = np.random.default_rng(0)
    lengths = [int(n) for n in rng.integers(5, 300, size=50)]
    order = rng.permutation(50)
    batches = epoch_batches(lengths, order, 4, False, np.random.default_rng(1), length_pool=3)
    assert sorted(i for b in batches for i in b) == list(range(50))  # every sequence once
    assert len(batches) == len(epoch_batches(lengths, order, 4, False, np.random.default_rng(1)))  # 13
    assert sorted(map(len, batches)) == [2] + [4] * 12  # only the last pool (2 of 50) is short
    for k in range(0, 50, 12):  # each pool of 3 batches of 4: the same sequences, sorted
        pool = sorted(order[k : k + 12], key=lambda i: lengths[i])
        cut = [pool[j : j + 4] for j in range(0, len(pool), 4)]
        assert all(any(b == list(map(int, c)) for b in batches) for c in cut)
    padded = sum(max(lengths[i] for i in b) * len(b) for b in batches)
    plain = sum(max(lengths[i] for i in order[k : k + 4]) * len(order[k : k + 4]) for k in range(0, 50, 4))
    assert padded < plain  # the point: less padding
    whole = epoch_batches(lengths, order, 4, True, np.random.default_rng(1), length_pool=100)
    assert sorted(max(lengths[i] for i in b) for b in whole) == [
        max(lengths[i] for i in c) for c in np.array_split(sorted(range(50), key=lambda i: lengths[i]),
                                                             range(4, 50, 4))]  # supersedes short_apart


BINNED = {"action_kind": "continuous", "action_dim": 3, "action_bins": 5, "action_low": [-1.0] * 3,
          "action_high": [1.0] * 3}  # values -1, -0.5, 0, 0.5, 1


def test_config_file_names_action_bins_only_where_set(tmp_path):
    tiny_config().save(tmp_path / "plain.json")
    written = json.loads((tmp_path / "plain.json").read_text())
    assert not {"action_bins", "action_low", "action_high"} & set(written)
    tiny_config(**BINNED).save(tmp_path / "binned.json")
    loaded = GroundingConfig.load(tmp_path / "binned.json")
    assert (loaded.action_bins, loaded.action_low, loaded.action_high) == (5, [-1.0] * 3, [1.0] * 3)
    with pytest.raises(ValueError, match="continuous actions; this config's are discrete"):
        tiny_config(action_bins=5, action_low=[-1.0] * 40, action_high=[1.0] * 40)
    with pytest.raises(ValueError, match="action_dim = 3 values each, got 2 and 3"):
        tiny_config(**{**BINNED, "action_low": [-1.0] * 2})
    assert TrainSettings(action_bins=21).key()["action_bins"] == 21


def test_action_bins_head_learns_and_chooses_the_values_of_the_data():
    model = tiny_model(**BINNED).train()
    assert model.action_head.out_features == 3 * 5
    assert not any(key.startswith("bins.") for key in model.state_dict())  # values not saved
    rng = np.random.default_rng(0)
    states = rng.normal(size=(7, 10)).astype(np.float32)
    actions = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0], size=(6, 3)).astype(np.float32)
    text = CLEVR.tasks("train")[0].phrasings[0]
    factory = SequenceFactory(model.tokenizer, slot_token_id(model.tokenizer), 10, (3,), np.float32,
                              lambda _: None)
    batch = collate([rollout_sequence(factory.builder(text), text, states, actions)],
                    model.tokenizer.pad_token_id, model.config.max_positions, None)
    optimiser = torch.optim.Adam(model.parameters(), lr=3e-3)
    first = None
    for _ in range(150):
        loss = model.losses(batch)["action"]
        first = float(loss.detach()) if first is None else first
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    assert float(loss.detach()) < 0.1 * first
    model.eval()
    with torch.no_grad():
        embeds = model.embed(*(batch[k] for k in ("ids", "kind", "states", "actions", "sentence")))
        hidden = model.run(embeds, batch["attention_mask"], batch["position_ids"])[0][batch["action_mask"]]
        np.testing.assert_array_equal(model.choose_action(hidden).numpy(), actions)  # the argmax
        drawn = [model.choose_action(hidden, torch.Generator().manual_seed(seed)).numpy() for seed in (4, 4)]
    np.testing.assert_array_equal(drawn[0], drawn[1])  # seeded draws
    assert set(np.unique(drawn[0])) <= {-1.0, -0.5, 0.0, 0.5, 1.0}


METAWORLD, CLEVR_TRAIN = "imaginebench/metaworld-train-real-v0", "imaginebench/clevr-train-real-v0"


@pytest.mark.parametrize("args, lever, expected", [
    ([METAWORLD], "holdout_per_task", True),
    ([METAWORLD, "--no-holdout-per-task"], "holdout_per_task", False),
    ([METAWORLD], "short_apart", True), ([CLEVR_TRAIN], "short_apart", False),
    # CLEVR's demo builds ground on symmetric copies, each batch in 2 parts; its paper builds do not
    ([CLEVR_TRAIN], "symmetries", True), ([CLEVR_TRAIN, "--no-symmetries"], "symmetries", False),
    ([CLEVR_TRAIN, "--scale", "paper"], "symmetries", False),
    ([CLEVR_TRAIN, "--scale", "paper", "--symmetries"], "symmetries", True),
    ([CLEVR_TRAIN], "length_split", 2), ([CLEVR_TRAIN, "--length-split", "0"], "length_split", 0),
    ([CLEVR_TRAIN, "--scale", "paper"], "length_split", 0),
    ([CLEVR_TRAIN], "epochs", 20), ([CLEVR_TRAIN, "--scale", "paper"], "epochs", 10),
    ([CLEVR_TRAIN, "--scale", "paper", "--epochs", "3"], "epochs", 3),
    ([METAWORLD, "--scale", "paper"], "epochs", 5), ([METAWORLD, "--scale", "paper"], "short_apart", True),
    ([CLEVR_TRAIN], "length_pool", 0), ([CLEVR_TRAIN, "--length-pool", "8"], "length_pool", 8),
    ([CLEVR_TRAIN], "seed", 0), ([CLEVR_TRAIN, "--seed", "3"], "seed", 3),
])
def test_ground_command_passes_its_levers_on(monkeypatch, args, lever, expected):
    from typer.testing import CliRunner

    from imaginebench_data.cli import app
    from imaginebench_data.imagine import checkpoints

    seen = {}

    def stop(dataset_id, *, settings, **_):
        seen["settings"] = settings
        raise SystemExit(0)

    monkeypatch.setattr(checkpoints, "ensure_checkpoint", stop)
    result = CliRunner().invoke(app, ["ground", *args])
    assert result.exit_code == 0, result.output
    value = getattr(seen["settings"], lever)
    assert value == expected and type(value) is type(expected)  # True, not 1


def _builds_trained_on() -> dict[str, object]:
    """One imagined recipe per training set the builds ground on."""
    from imaginebench_data.pipeline.recipe import load_recipes

    return {str(r.train_from): r for r in load_recipes().values() if r.generator == "imagine"}


@pytest.mark.parametrize("scale", ["demo", "paper"])
@pytest.mark.parametrize("train", sorted(_builds_trained_on()))
def test_ground_command_and_build_name_the_recipes_checkpoint_folder(monkeypatch, train, scale):
    """`imaginebench ground`, a build and ``Recipe.grounding`` (what experiments call) compose
    the builds' settings in one place, so all three name the same checkpoint folder."""
    from typer.testing import CliRunner

    from imaginebench_data.cli import app
    from imaginebench_data.imagine import checkpoints
    from imaginebench_data.pipeline.build import build

    recipe = _builds_trained_on()[train]
    monkeypatch.setattr(checkpoints, "read_card", lambda _: SimpleNamespace(checksum="stand-in"))
    folders = []

    def stop(dataset_id, *, settings, backbone="scratch", lora=0, **_):
        folders.append(checkpoints.checkpoint_dir(dataset_id, backbone, lora, "minilm", settings))
        raise KeyboardInterrupt  # what neither the command nor the build catches

    monkeypatch.setattr(checkpoints, "ensure_checkpoint", stop)
    CliRunner().invoke(app, ["ground", train, "--scale", scale])
    with pytest.raises(KeyboardInterrupt):
        build(str(recipe.dataset_id), scale=scale, progress=False)
    expected = checkpoints.checkpoint_dir(train, "scratch", 0, "minilm", recipe.grounding(scale))
    assert folders == [expected, expected]
    # and a setting given to either moves the folder
    CliRunner().invoke(app, ["ground", train, "--scale", scale, "--seed", "7"])
    assert folders[-1] != expected
    assert folders[-1] == checkpoints.checkpoint_dir(train, "scratch", 0, "minilm",
                                                     recipe.grounding(scale, seed=7))


def test_ground_command_refuses_an_unknown_scale_in_one_line():
    from typer.testing import CliRunner

    from imaginebench_data.cli import app

    result = CliRunner().invoke(app, ["ground", CLEVR_TRAIN, "--scale", "huge"])
    assert result.exit_code == 2
    assert "expected one of ('demo', 'paper'), got 'huge'" in " ".join(result.output.split())
    assert "Traceback" not in result.output
