"""Each data regime against real-only on the same level: ahead, behind, or within the noise.

The benchmark asks whether imagined rollouts help (issue 14: real+imaginary ahead of real-only
on at least two of three novel levels). With a few seeds, a gap of several points can be the
seeds' noise, so a mean ± std table alone leaves each reader to judge. This gives, for each
level and regime other than ``real``, the difference of the mean success rates (regime minus
real-only, in points) and Welch's confidence interval for it over the seeds (each seed's rate
one sample; the two regimes' spreads not assumed equal), and a verdict:

- ``ahead``: the whole interval above 0;
- ``behind``: the whole interval below 0;
- ``within the noise``: the interval holds 0;
- ``tied``: every seed of both gave the same rate (HalfCheetah's hard level: 33.3% in each);
- ``no spread``: every seed of each gave one rate, the two rates differ: the seeds give no
  interval (each rate is still a draw of 40-84 episodes, so the gap is not certain; until
  2026-12-08 this read ``ahead`` or ``behind`` with an interval of zero width);
- ``one seed``: a regime with one seed has no spread, so no interval.

Every comparison is judged on its own (no correction for the several made in one table): at
95%, about one in twenty regimes that do not differ from real-only would still read as ahead
or behind.
"""

from __future__ import annotations

import math

import pandas as pd

CONFIDENCE = 0.95
VERDICTS = ("ahead", "behind", "within the noise", "tied", "no spread", "one seed")


def welch_interval(a: pd.Series, b: pd.Series, confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """``(difference, low, high)`` of ``mean(a) - mean(b)`` with Welch's ``confidence`` interval
    (NaN bounds when either sample has one value, or when neither has any spread and their
    values differ: no interval can be drawn from them; 0 for all three when they are equal)."""
    from scipy import stats

    difference = float(a.mean() - b.mean())
    if len(a) < 2 or len(b) < 2:
        return difference, math.nan, math.nan
    # a constant column's variance is 0, not numpy's rounding of it (found 2026-12-06: ten seeds of
    # 33.3% gave about 1e-33, and the tie read "-0.0 to +0.0, within the noise")
    va, vb = (0.0 if x.min() == x.max() else float(x.var(ddof=1)) / len(x) for x in (a, b))
    if va == vb == 0.0 and a.min() == b.min():
        return 0.0, 0.0, 0.0
    error = math.sqrt(va + vb)
    if error == 0.0:
        return difference, math.nan, math.nan
    dof = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    half = float(stats.t.ppf(0.5 + confidence / 2, dof)) * error
    return difference, difference - half, difference + half


def verdict(low: float, high: float) -> str:
    """One of ``VERDICTS`` for an interval (NaN bounds: one seed)."""
    if math.isnan(low):
        return "one seed"
    if low == high == 0:
        return "tied"
    if low > 0:
        return "ahead"
    if high < 0:
        return "behind"
    return "within the noise"


def against_real(results: pd.DataFrame, confidence: float = CONFIDENCE) -> pd.DataFrame:
    """Per (level, regime) other than ``real``, in the order ``results`` holds them: ``difference``,
    ``low``, ``high`` (points of success rate, regime minus real-only) and ``verdict``. Levels
    without a real-only row (none to compare with) are left out."""
    rows = []
    for (level, regime), part in results.groupby(["level", "regime"], sort=False)["success_rate"]:
        real = results[(results["level"] == level) & (results["regime"] == "real")]["success_rate"]
        if regime == "real" or real.empty:
            continue
        difference, low, high = (100 * v for v in welch_interval(part, real, confidence))
        said = verdict(low, high)
        if said == "one seed" and len(part) > 1 and len(real) > 1:
            said = "no spread"
        rows.append({"level": level, "regime": regime, "difference": difference, "low": low, "high": high,
                     "verdict": said, "seeds": len(part), "real_seeds": len(real)})
    return pd.DataFrame(rows, columns=["level", "regime", "difference", "low", "high", "verdict", "seeds",
                                       "real_seeds"])


def cell(row: pd.Series) -> str:
    """``+19.1 (+7.6 to +30.6), ahead``: the difference in points, its interval, the verdict
    (ahead or behind in bold)."""
    if row["verdict"] in ("one seed", "no spread", "tied"):
        return f"{row['difference']:+.1f} ({row['verdict']})"
    said = f"**{row['verdict']}**" if row["verdict"] in ("ahead", "behind") else row["verdict"]
    return f"{row['difference']:+.1f} ({row['low']:+.1f} to {row['high']:+.1f}), {said}"


def markdown(table: pd.DataFrame, regimes: list[str], domain: str | None = None) -> list[str]:
    """The rows of ``against_real``'s table as Markdown, a column per regime of ``regimes`` (real-only
    left out); with ``domain``, a first column naming it and no header."""
    compared = [r for r in regimes if r != "real"]
    lines = [] if domain else ["| level | " + " | ".join(compared) + " |", "|---|" + "---|" * len(compared)]
    for level in dict.fromkeys(table["level"]):
        part = table[table["level"] == level].set_index("regime")
        cells = [cell(part.loc[r]) if r in part.index else "" for r in compared]
        lines.append(f"| {f'{domain} | ' if domain else ''}{level} | " + " | ".join(cells) + " |")
    return lines


def benchmark_markdown(every: list[pd.DataFrame], regimes: tuple[str, ...]) -> str:
    """One Markdown table of several domains' ``against_real``: a row per (domain, level)."""
    compared = [r for r in regimes if r != "real"]
    lines = ["| domain | level | " + " | ".join(compared) + " |", "|---|---|" + "---|" * len(compared)]
    for results in every:
        lines += markdown(against_real(results), list(regimes), domain=results["domain"].iloc[0])
    return "\n".join(lines)


def plot(ax, table: pd.DataFrame, levels: list[str], regimes: list[str], order: tuple[str, ...]) -> None:
    """``table`` (``against_real``'s rows with an interval) on ``ax``: per level, each regime's
    difference from real-only as a point with its interval, a regime's colour its place in
    ``order`` (the bar plot's colours), and the line of no difference."""
    height = 0.8 / max(len(regimes), 1)
    for k, regime in enumerate(regimes):
        part = table[table["regime"] == regime].set_index("level").reindex(levels)
        ys = [i + (k - (len(regimes) - 1) / 2) * height for i in range(len(levels))]
        spans = [part["difference"] - part["low"], part["high"] - part["difference"]]
        ax.errorbar(part["difference"], ys, xerr=spans, fmt="o", capsize=3, color=f"C{order.index(regime)}",
                    label=regime)
    ax.axvline(0.0, color="grey", linewidth=1)
    ax.set_yticks(range(len(levels)), levels)
    ax.invert_yaxis()
    ax.set_xlabel("success rate minus real-only's (points)")
    ax.set_title(f"against real-only: difference, Welch's {CONFIDENCE:.0%} interval")
    ax.legend(fontsize="small")


def section(table: str, confidence: float = CONFIDENCE) -> str:
    """The Markdown section "Against real-only" holding ``table`` (``markdown`` or
    ``benchmark_markdown``'s), under the sentence that explains it."""
    return f"\n## Against real-only\n\n{explained(confidence)}\n\n{table}\n"


def explained(confidence: float = CONFIDENCE) -> str:
    """The sentence a table of ``against_real`` is printed under."""
    return (f"Each regime against real-only on the same level: the difference of the mean success rates "
            f"(points), Welch's {confidence:.0%} confidence interval for it over the seeds, and whether the "
            f"interval lies above 0 (ahead), below (behind) or holds 0 (within the noise); each comparison "
            f"judged on its own.")
