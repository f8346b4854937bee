"""Each regime against real-only: Welch's interval over the seeds, and the verdict it gives."""

import math

import pandas as pd
import pytest
from PIL import Image
from scipy import stats

from imaginebench_data.baselines import against_real as ar
from imaginebench_data.baselines.compare import write_results


def rows(level: str, regime: str, rates: list[float]) -> list[dict]:
    return [{"domain": "clevr", "algo": "bc", "level": level, "regime": regime, "seed": seed,
             "success_rate": rate} for seed, rate in enumerate(rates)]


def frame(*parts: list[dict]) -> pd.DataFrame:
    return pd.DataFrame([row for part in parts for row in part])


def test_the_interval_is_welchs_worked_by_hand_and_by_scipy():
    """Equal spreads of 3 seeds: standard error sqrt(2 x 0.01 / 3), 4 degrees of freedom,
    t = 2.776; unequal sizes and spreads against scipy's own Welch test."""
    difference, low, high = ar.welch_interval(pd.Series([0.5, 0.6, 0.7]), pd.Series([0.2, 0.3, 0.4]))
    half = stats.t.ppf(0.975, 4) * math.sqrt(2 * 0.01 / 3)
    assert difference == pytest.approx(0.3)
    assert (low, high) == pytest.approx((0.3 - half, 0.3 + half))
    assert (low, high) == pytest.approx((0.07330, 0.52670), abs=1e-5)

    a, b = [0.1, 0.4, 0.2, 0.3], [0.25, 0.05]
    difference, low, high = ar.welch_interval(pd.Series(a), pd.Series(b))
    scipy_says = stats.ttest_ind(a, b, equal_var=False).confidence_interval(0.95)
    assert difference == pytest.approx(0.1)
    assert (low, high) == pytest.approx((scipy_says.low, scipy_says.high))
    # a wider confidence, a wider interval
    _, low90, high90 = ar.welch_interval(pd.Series(a), pd.Series(b), confidence=0.9)
    assert low < low90 < high90 < high


def test_verdicts_on_constructed_results():
    results = frame(
        rows("easy", "real", [0.2, 0.3, 0.4]), rows("easy", "real+imaginary", [0.5, 0.6, 0.7]),
        rows("easy", "oracle", [0.0, 0.05, 0.1]),
        rows("hard", "real", [1 / 3] * 3), rows("hard", "real+imaginary", [1 / 3] * 3),
        rows("hard", "oracle", [0.5] * 3),                      # no spread, but another rate: no interval
        rows("rephrase", "real", [0.3, 0.5, 0.4]), rows("rephrase", "real+imaginary", [0.2, 0.6, 0.5]),
        rows("rephrase", "real+verified", [0.9]),               # one seed: no interval
        rows("train", "oracle", [0.5, 0.6]),                    # no real-only row: nothing to compare
    )
    table = ar.against_real(results).set_index(["level", "regime"])
    assert list(table.index) == [("easy", "real+imaginary"), ("easy", "oracle"), ("hard", "real+imaginary"),
                                 ("hard", "oracle"), ("rephrase", "real+imaginary"),
                                 ("rephrase", "real+verified")]
    verdicts = table["verdict"].to_dict()
    assert verdicts[("easy", "real+imaginary")] == "ahead"
    assert verdicts[("easy", "oracle")] == "behind"
    assert verdicts[("hard", "real+imaginary")] == "tied"
    assert verdicts[("hard", "oracle")] == "no spread"  # was "ahead", an interval of zero width
    assert verdicts[("rephrase", "real+imaginary")] == "within the noise"
    assert verdicts[("rephrase", "real+verified")] == "one seed"
    assert table.loc[("easy", "real+imaginary"), "difference"] == pytest.approx(30.0)
    assert table.loc[("easy", "real+imaginary"), "low"] == pytest.approx(7.330, abs=1e-3)
    assert table.loc[("hard", "oracle"), "difference"] == pytest.approx(100 / 6)
    assert table.loc[("hard", "oracle"), ["low", "high"]].isna().all()
    assert table.loc[("rephrase", "real+verified"), "seeds"] == 1
    assert math.isnan(table.loc[("rephrase", "real+verified"), "low"])


@pytest.mark.parametrize("seeds", [3, 10])
def test_ten_equal_thirds_are_tied_not_within_the_noise(seeds):
    """Found 2026-12-06: HalfCheetah hard's 33.3% in each of 10 seeds gave numpy a variance of
    about 1e-33, and the tie read "+0.0 (-0.0 to +0.0), within the noise"."""
    third, none = pd.Series([1 / 3] * seeds), pd.Series([0.0] * seeds)
    assert ar.welch_interval(third, third) == (0.0, 0.0, 0.0)
    assert ar.verdict(*ar.welch_interval(third, third)[1:]) == "tied"
    difference, low, high = ar.welch_interval(none, third)  # each constant, the two apart: no interval
    assert difference == pytest.approx(-1 / 3) and math.isnan(low) and math.isnan(high)
    results = frame(rows("hard", "real", [1 / 3] * seeds), rows("hard", "real+imaginary", [0.0] * seeds))
    row = ar.against_real(results).iloc[0]
    assert row["verdict"] == "no spread" and ar.cell(row) == "-33.3 (no spread)"


def test_markdown_cells_and_the_benchmark_table(tmp_path):
    results = frame(rows("easy", "real", [0.2, 0.3, 0.4]), rows("easy", "real+imaginary", [0.5, 0.6, 0.7]),
                    rows("hard", "real", [0.1, 0.0, 0.2]), rows("hard", "real+imaginary", [0.0, 0.2, 0.1]))
    lines = ar.markdown(ar.against_real(results), ["real", "real+imaginary", "oracle"])
    assert lines[0] == "| level | real+imaginary | oracle |"
    assert lines[2] == "| easy | +30.0 (+7.3 to +52.7), **ahead** |  |"
    assert lines[3].startswith("| hard | +0.0 (-") and lines[3].endswith("), within the noise |  |")

    other = results.assign(domain="babyai")
    table = ar.benchmark_markdown([results, other], ("real", "real+imaginary", "real+verified", "oracle"))
    assert table.splitlines()[0] == "| domain | level | real+imaginary | real+verified | oracle |"
    assert table.splitlines()[2] == "| clevr | easy | +30.0 (+7.3 to +52.7), **ahead** |  |  |"
    assert table.splitlines()[5].startswith("| babyai | hard | +0.0 (")

    paths = write_results(results.assign(episodes=48), tmp_path / "two")
    written = paths[1].read_text()
    assert "## Against real-only" in written
    assert "| easy | +30.0 (+7.3 to +52.7), **ahead** |" in written
    # the plot gets a panel of the intervals beside the bars; one seed has none: the bars alone
    one_seed = write_results(results[results["seed"] == 0].assign(episodes=48), tmp_path / "one")
    assert "## Against real-only" in one_seed[1].read_text() and "(one seed)" in one_seed[1].read_text()
    assert Image.open(paths[2]).width > 1.5 * Image.open(one_seed[2]).width
