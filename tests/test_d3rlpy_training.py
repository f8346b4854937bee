"""d3rlpy's CQL and TD3+BC through the adapter (run in .venv-d3rlpy): 1:1 batches, the policy
sees the adapter's rows, and the comparison runs end to end."""

import minari
import numpy as np
import pandas as pd
import pytest
import torch
from tiny import TextIds

d3rlpy = pytest.importorskip("d3rlpy")

from imaginebench_data import make_env  # noqa: E402
from imaginebench_data.adapters.d3rlpy import to_d3rlpy  # noqa: E402
from imaginebench_data.baselines.compare import compare, write_results  # noqa: E402
from imaginebench_data.baselines.offline import (  # noqa: E402
    OfflineSettings,
    mix,
    parse_config,
    softmax_of_q,
    train_offline,
)
from imaginebench_data.pipeline.build import build  # noqa: E402

TRAIN = "imaginebench/clevr-train-real-v0"
EASY = "imaginebench/clevr-easy-real-v0"


@pytest.fixture
def clevr_sets(minari_root, tmp_path):
    for dataset_id in (TRAIN, EASY):
        build(dataset_id, episodes=8, workers=1, cards_dir=tmp_path / "cards", progress=False)


def instruction_ids(dataset_id, encoder):
    texts = {e.observations["instruction"][0] for e in minari.load_dataset(dataset_id).iterate_episodes()}
    return {float(encoder.encode([t])[0, 0]) for t in texts}


def test_mixed_batches_hold_exactly_half_of_each_source(clevr_sets):
    encoder = TextIds()
    buffer = mix([to_d3rlpy(TRAIN, encoder=encoder), to_d3rlpy(EASY, encoder=encoder)], [0.5, 0.5])
    train_ids, easy_ids = instruction_ids(TRAIN, encoder), instruction_ids(EASY, encoder)
    assert train_ids and easy_ids and not train_ids & easy_ids
    for _ in range(3):
        ids = buffer.sample_transition_batch(256).observations[:, 10]
        assert sum(i in train_ids for i in ids) == 128
        assert sum(i in easy_ids for i in ids) == 128


def test_discrete_cql_policy_sees_the_adapter_rows(clevr_sets):
    encoder = TextIds()
    policy, losses = train_offline("cql", {TRAIN: 1.0}, OfflineSettings(steps=30, batch_size=32),
                                   encoder=encoder)
    assert len(losses) == 1 and np.isfinite(losses[0])
    rows = to_d3rlpy(TRAIN, encoder=encoder).episodes[0].observations
    episode = next(minari.load_dataset(TRAIN).iterate_episodes())
    states, texts = episode.observations["state"], episode.observations["instruction"]
    for t in range(len(episode.actions)):
        obs = {"state": states[t], "instruction": texts[t]}
        np.testing.assert_array_equal(policy.features(obs), rows[t:t + 1])
        action = policy(obs)
        assert isinstance(action, int) and action == int(policy.act(rows[t:t + 1])[0])


@pytest.mark.parametrize("steps, epochs", [(130, 2), (30, 1), (200, 2)])
def test_every_step_asked_for_is_trained(clevr_sets, steps, epochs):
    """d3rlpy's fitter runs whole epochs: 130 steps in epochs of 100 trained 100 (before 2026-12-07)."""
    policy, losses = train_offline("cql", {TRAIN: 1.0}, OfflineSettings(steps=steps, batch_size=8),
                                   encoder=TextIds())
    assert policy.act.__self__._grad_step == steps and len(losses) == epochs


def test_d3rlpy_settings_replace_its_defaults(clevr_sets):
    """--d3rlpy KEY=VALUE reaches the algorithm d3rlpy trains, and only the fields named change."""
    config = parse_config(["target_update_interval=10", "learning_rate=3e-4"])
    assert config == {"target_update_interval": 10, "learning_rate": 0.0003}
    settings = OfflineSettings(steps=30, batch_size=32, config=config)
    policy, _ = train_offline("cql", {TRAIN: 1.0}, settings, encoder=TextIds())
    trained = policy.act.__self__.config
    assert (trained.target_update_interval, trained.learning_rate) == (10, 0.0003)
    assert (trained.alpha, trained.batch_size) == (d3rlpy.algos.DiscreteCQLConfig().alpha, 32)
    small = OfflineSettings(steps=30, batch_size=32)
    default = train_offline("cql", {TRAIN: 1.0}, small, encoder=TextIds())[0].act.__self__.config
    # the package's defaults: d3rlpy's (6.25e-5, 8,000) never sync in a 5,000-step run
    assert (default.learning_rate, default.target_update_interval) == (0.001, 500)
    unknown = "DiscreteCQLConfig has no field target_interval; its fields: .*target_update_interval"
    with pytest.raises(ValueError, match=unknown):
        train_offline("cql", {TRAIN: 1.0}, OfflineSettings(steps=5, config={"target_interval": 10}),
                      encoder=TextIds())


def test_a_dotted_setting_changes_one_field_of_a_nested_config(clevr_sets):
    """encoder_factory.dropout_rate=0.25 reaches the trained network's dropout layers, and the
    factory's other fields keep d3rlpy's values."""
    settings = OfflineSettings(steps=5, batch_size=8, config={"encoder_factory.dropout_rate": 0.25})
    algorithm = train_offline("cql", {TRAIN: 1.0}, settings, encoder=TextIds())[0].act.__self__
    factory = algorithm.config.encoder_factory
    default = d3rlpy.algos.DiscreteCQLConfig().encoder_factory
    assert (factory.dropout_rate, factory.activation, factory.use_batch_norm) == (
        0.25, default.activation, default.use_batch_norm)
    rates = [m.p for m in algorithm.impl.q_function.modules() if isinstance(m, torch.nn.Dropout)]
    assert rates and set(rates) == {0.25}
    with pytest.raises(ValueError, match="DefaultEncoderFactory has no field encoder_factory.dropout; "
                                         "its fields: activation, dropout_rate, use_batch_norm"):
        train_offline("cql", {TRAIN: 1.0}, OfflineSettings(steps=5, config={"encoder_factory.dropout": 0.1}),
                      encoder=TextIds())
    with pytest.raises(ValueError, match="DiscreteCQLConfig.alpha is float, which has no fields to set"):
        train_offline("cql", {TRAIN: 1.0}, OfflineSettings(steps=5, config={"alpha.x": 1}), encoder=TextIds())


def test_a_named_config_swaps_a_nested_configs_type(clevr_sets):
    """encoder_factory=vector makes the Q-network d3rlpy's vector encoder, whose listed hidden
    units and dropout then reach the trained layers; a name d3rlpy has not registered is refused."""
    config = parse_config(["encoder_factory=vector", "encoder_factory.hidden_units=24,40",
                           "encoder_factory.dropout_rate=0.3"])
    assert config["encoder_factory.hidden_units"] == [24, 40]
    settings = OfflineSettings(steps=5, batch_size=8, config=config)
    algorithm = train_offline("cql", {TRAIN: 1.0}, settings, encoder=TextIds())[0].act.__self__
    factory = algorithm.config.encoder_factory
    assert isinstance(factory, d3rlpy.models.VectorEncoderFactory) and factory.hidden_units == [24, 40]
    modules = list(algorithm.impl.q_function.modules())
    assert [m.out_features for m in modules if isinstance(m, torch.nn.Linear)][:2] == [24, 40]
    assert {m.p for m in modules if isinstance(m, torch.nn.Dropout)} == {0.3}
    with pytest.raises(ValueError, match="DiscreteCQLConfig.encoder_factory is one of d3rlpy's "
                                         "default, pixel, simba, vector; got 'vectr'"):
        train_offline("cql", {TRAIN: 1.0}, OfflineSettings(steps=5, config={"encoder_factory": "vectr"}),
                      encoder=TextIds())


def test_observation_scaler_none_feeds_the_states_unscaled(clevr_sets):
    """By default the states are standardised by the training rows' mean and spread;
    --d3rlpy observation_scaler=none leaves the algorithm no scaler, so its Q-network reads the
    adapter's rows as they are."""
    rows = np.concatenate([e.observations for e in to_d3rlpy(TRAIN, encoder=TextIds()).episodes])
    default = train_offline("cql", {TRAIN: 1.0}, OfflineSettings(steps=5, batch_size=8),
                            encoder=TextIds())[0].act.__self__
    np.testing.assert_allclose(default.config.observation_scaler.mean, rows.mean(0), rtol=1e-5, atol=1e-6)
    config = parse_config(["observation_scaler=none"])
    assert config == {"observation_scaler": None}
    settings = OfflineSettings(steps=5, batch_size=8, config=config)
    algorithm = train_offline("cql", {TRAIN: 1.0}, settings, encoder=TextIds())[0].act.__self__
    assert algorithm.config.observation_scaler is None
    (q_function,) = algorithm.impl.q_function  # d3rlpy's one critic for discrete CQL
    with torch.no_grad():
        q = q_function(torch.as_tensor(rows[:16])).q_value
    np.testing.assert_array_equal(algorithm.predict(rows[:16]), q.argmax(1).numpy())


def test_td3_plus_bc_needs_continuous_actions(clevr_sets):
    with pytest.raises(ValueError, match="td3\\+bc needs continuous actions; clevr has Discrete"):
        train_offline("td3+bc", {TRAIN: 1.0}, OfflineSettings(steps=5), encoder=TextIds())


@pytest.mark.parametrize("algo", ["td3+bc", "cql"])
def test_continuous_algorithms_act_in_the_metaworld_env(minari_root, tmp_path, algo):
    train = "imaginebench/metaworld-train-real-v0"
    build(train, episodes=2, workers=1, cards_dir=tmp_path / "cards", progress=False)
    policy, _ = train_offline(algo, {train: 1.0}, OfflineSettings(steps=20, batch_size=16), encoder=TextIds())
    env = make_env("metaworld", "train")
    obs, _ = env.reset(seed=0)
    action = policy(obs)
    assert action.shape == (4,) and action.dtype == np.float32 and np.all(np.abs(action) <= 1.0)
    obs, *_ = env.step(action)
    env.close()
    assert np.all(np.isfinite(obs["state"]))
    if algo == "cql":
        with pytest.raises(ValueError, match="softmax of Q applies to discrete actions; metaworld's are"):
            train_offline(algo, {train: 1.0}, OfflineSettings(steps=20, sample=True), encoder=TextIds())


def test_a_named_action_scaler_is_fitted_on_the_training_set(minari_root, tmp_path):
    """--d3rlpy action_scaler=min_max in a 1:1 mix: fitted on the first (training) dataset's
    actions alone, as the states' scaler is, and the policy's actions stay within that range."""
    train, easy = "imaginebench/metaworld-train-real-v0", "imaginebench/metaworld-easy-real-v0"
    for dataset_id in (train, easy):
        build(dataset_id, episodes=2, workers=1, cards_dir=tmp_path / "cards", progress=False)
    settings = OfflineSettings(steps=20, batch_size=16, config={"action_scaler": "min_max"})
    policy, _ = train_offline("td3+bc", {train: 0.5, easy: 0.5}, settings, encoder=TextIds())
    scaler = policy.act.__self__.config.action_scaler
    actions, other = (np.concatenate([e.actions for e in minari.load_dataset(d).iterate_episodes()])
                      for d in (train, easy))
    both = np.concatenate([actions, other])
    assert not np.allclose(both.min(0), actions.min(0)) or not np.allclose(both.max(0), actions.max(0))
    np.testing.assert_allclose(scaler.minimum, actions.min(0), rtol=1e-6)
    np.testing.assert_allclose(scaler.maximum, actions.max(0), rtol=1e-6)
    rows = to_d3rlpy(train, encoder=TextIds()).episodes[0].observations
    predicted = policy.act(rows + np.random.default_rng(0).normal(0, 5, rows.shape).astype(np.float32))
    assert np.all(predicted >= actions.min(0) - 1e-5) and np.all(predicted <= actions.max(0) + 1e-5)


def test_the_comparison_runs_cql_per_regime(clevr_sets, tmp_path):
    results = compare("clevr", algo="cql", levels=("easy",), regimes=("real", "oracle"), seeds=1, steps=20,
                      encoder=TextIds(), progress=False)
    assert results[["level", "regime", "algo"]].values.tolist() == [["easy", "real", "cql"],
                                                                     ["easy", "oracle", "cql"]]
    assert (results["episodes"] == 40).all() and results["success_rate"].between(0, 1).all()
    paths = write_results(results, tmp_path / "results")
    assert [p.name for p in paths] == ["clevr-cql.csv", "clevr-cql.md", "clevr-cql.png"]
    real, oracle = (f"{100 * r:.1f}%" for r in results["success_rate"])  # one seed: no spread
    assert f"| easy | {real} | {oracle} |" in paths[1].read_text()


def test_cql_gives_the_same_rows_on_two_workers(clevr_sets):
    """d3rlpy seeds itself per run, so runs spread over 2 spawned processes give the bits of
    this one (every row's loss differs, so a swap would show)."""
    runs = {"algo": "cql", "levels": ("easy",), "regimes": ("real", "oracle"), "seeds": 2, "steps": 100,
            "encoder": TextIds(), "progress": False}
    serial, spread = compare("clevr", **runs), compare("clevr", **runs, workers=2)
    columns = ["level", "regime", "seed", "success_rate", "episodes", "final_loss"]
    assert serial["final_loss"].nunique() == 4
    pd.testing.assert_frame_equal(serial[columns], spread[columns])


def test_d3rlpys_own_evaluator_runs_a_policy_trained_on_the_adapter(clevr_sets):
    """The flat env of make_env_and_datasets gives d3rlpy's EnvironmentEvaluator the rows the
    policy was trained on (state, then the instruction's encoding), so it runs unchanged."""
    import imaginebench_data as ib

    encoder = TextIds()
    env, train, level = ib.make_env_and_datasets("clevr-easy", source="real", encoder=encoder)
    dataset = to_d3rlpy(TRAIN, encoder=encoder)
    assert dataset.episodes[0].observations.shape[1] == env.observation_space.shape[0] == 11
    bc = d3rlpy.algos.DiscreteBCConfig(batch_size=16).create(device="cpu:0")
    bc.fit(dataset, n_steps=20, n_steps_per_epoch=20, show_progress=False,
           logger_adapter=d3rlpy.logging.NoopAdapterFactory())
    seen = []
    original = env.observation

    def spy(observation):
        seen.append(original(observation))
        return seen[-1]

    env.observation = spy
    score = d3rlpy.metrics.EnvironmentEvaluator(env, n_trials=4)(bc, dataset)
    assert len(seen) >= 4 and all(row.shape == (11,) for row in seen)  # four episodes, flat rows
    assert 0.0 <= score <= 1.0  # easy-level returns: 1 on success, else 0


def test_softmax_of_q_draws_each_action_with_its_softmax_probability():
    class Values:  # Q(s, a) = log of the weights 1 : 3 : 0 in every state
        action_size = 3

        def predict_value(self, rows, actions):
            return np.log(np.array([1.0, 3.0, 1e-12]))[actions] + rows[:, 0]

    act, rewind = softmax_of_q(Values(), seed=0)
    rows = np.random.default_rng(1).normal(size=(4000, 2))
    drawn = act(rows)
    assert drawn.shape == (4000,) and set(drawn) <= {0, 1}
    assert abs((drawn == 1).mean() - 0.75) < 0.03
    np.testing.assert_array_equal(drawn, softmax_of_q(Values(), seed=0)[0](rows))
    assert not np.array_equal(act(rows), drawn)  # the draws go on ...
    rewind()
    np.testing.assert_array_equal(act(rows), drawn)  # ... until rewound to the seed's start


def test_a_sampling_cql_policy_acts_with_seeded_draws(clevr_sets):
    rows = to_d3rlpy(TRAIN, encoder=TextIds()).episodes[0].observations
    acts = [train_offline("cql", {TRAIN: 1.0}, OfflineSettings(steps=30, batch_size=32, sample=True),
                          encoder=TextIds())[0].act(np.repeat(rows[:1], 200, 0)) for _ in range(2)]
    np.testing.assert_array_equal(acts[0], acts[1])
    assert len(set(acts[0])) > 1  # drawn, not the argmax: 30 steps leave the softmax wide
