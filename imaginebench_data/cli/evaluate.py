"""``imaginebench evaluate``: the benchmark's comparison of data regimes (``baselines/compare.py``)."""

from __future__ import annotations

import importlib.util
import os
import time
from pathlib import Path

import typer

from .app import (
    app,
    check_bins,
    check_domains,
    console,
    examples,
)


@app.command("evaluate", epilog=examples("imaginebench evaluate --domain clevr --algo bc --seeds 3",
                                           "imaginebench evaluate --level train --budget paper",
                                           "imaginebench evaluate --level train --steps 20000 --hidden 512 "
                                           "--dropout 0.2",
                                           "imaginebench evaluate --domain halfcheetah --level train "
                                           "--normalize --no-history --bins 21",
                                           "imaginebench evaluate --domain all --seeds 3",
                                           "imaginebench evaluate --domain libero --seeds 3 --workers 2",
                                           "imaginebench evaluate --domain babyai --level easy --regime real "
                                           "--regime real+imaginary"))
def evaluate_regimes(
    domains: list[str] = typer.Option(None, "--domain", help="Domain whose datasets are compared "
                                      "(repeatable; 'all': every domain with a built training set). "
                                      "Default: clevr."),
    algo: str = typer.Option("bc", help="bc (plain torch), or d3rlpy's cql / td3+bc (in .venv-d3rlpy)."),
    seeds: int = typer.Option(3, min=1, help="Seeds per (level, regime)."),
    budget: str = typer.Option("demo", help="demo (5,000 gradient steps per run) or paper (the "
                               "original's 500,000)."),
    steps: int | None = typer.Option(None, min=1, help="Gradient steps per run (overrides --budget)."),
    hidden: int = typer.Option(256, min=1, help="bc: width of the MLP's two hidden layers."),
    dropout: float = typer.Option(0.0, help="bc: dropout after each hidden layer while training."),
    normalize: bool = typer.Option(False, help="bc: standardize the state columns (the training "
                                   "rows' mean and spread)."),
    history: bool = typer.Option(True, help="bc: let the policy see the domain's history columns "
                                 "(HalfCheetah's distance so far, time, furthest points); "
                                 "--no-history leaves them out."),
    bins: int = typer.Option(0, min=0, help="bc, continuous actions: each action number one of this many "
                             "evenly spaced values (cross-entropy, sampled when acting); 0: "
                             "regression (MSE)."),
    symmetries: bool = typer.Option(False, help="bc: every batch row a copy of itself that keeps its task "
                                    "(CLEVR: colours permuted, the table mirrored; LIBERO: items the task "
                                    "leaves already in the basket)."),
    d3rlpy: list[str] = typer.Option(None, "--d3rlpy", help="cql, td3+bc: KEY=VALUE, a field of "
                                     "d3rlpy's config replacing its default (repeatable), e.g. "
                                     "--d3rlpy learning_rate=3e-4; a dotted KEY sets a nested config's "
                                     "field, e.g. --d3rlpy encoder_factory.dropout_rate=0.1; a name "
                                     "picks d3rlpy's registered config (encoder_factory=vector, then "
                                     "encoder_factory.hidden_units=512,512); none sets a field to None "
                                     "(observation_scaler=none: the states unscaled)."),
    softmax_q: bool = typer.Option(False, help="cql, discrete actions: draw each action from the softmax "
                                   "of its Q-values (seeded), as bc samples its softmax; default: the "
                                   "argmax."),
    levels: list[str] = typer.Option(None, "--level", help="Only this level (repeatable); default all."),
    regimes: list[str] = typer.Option(None, "--regime", help="Only this data regime: real, "
                                      "real+imaginary, real+verified or oracle (repeatable); default all."),
    out: Path = typer.Option(Path("results"), help="Folder for the result files. "
                             "<domain>-<algo>.journal.csv there keeps each finished training's rows: run "
                             "the same command again after a stop, or once finished with fewer levels or "
                             "more seeds, and those are read back, not trained again (only with the same "
                             "settings, datasets and package versions; delete it to train all again)."),
    workers: int = typer.Option(1, help="Processes training (and evaluating) the policies side by side, one "
                                "per (datasets, seed); the same results whatever the number."),
) -> None:
    """Train a policy on each data regime (real / real+imaginary / real+verified / oracle) of
    each level, evaluate it in the level's eval env, and write the table (mean ± std over seeds),
    each regime against real-only (the difference, Welch's 95% interval over the seeds: ahead,
    behind or within the noise) and a plot per domain; with several domains also
    results/benchmark-<algo>.md, all in one."""
    from ..baselines import against_real
    from ..baselines.compare import (
        ALGOS,
        BUDGETS,
        LEVELS,
        REGIMES,
        benchmark_table,
        compare,
        markdown_table,
        regimes_run,
        summary,
        write_results,
    )
    from ..baselines.offline import changed_settings, parse_config
    from ..datasets.read import local_ids, read_card
    from ..domains import domain_names, get_domain

    if budget not in BUDGETS:
        raise typer.BadParameter(f"--budget must be one of {', '.join(BUDGETS)}, got {budget!r}")
    steps = steps or BUDGETS[budget]
    if d3rlpy and algo == "bc":
        raise typer.BadParameter("--d3rlpy sets d3rlpy's algorithms (--algo cql or td3+bc), not bc")
    if softmax_q and algo != "cql":
        raise typer.BadParameter(f"--softmax-q samples discrete CQL's Q-values (--algo cql), not {algo}'s")
    if algo not in ALGOS:
        raise typer.BadParameter(f"expected one of {', '.join(ALGOS)}, got {algo!r}", param_hint="'--algo'")
    try:
        config = parse_config(d3rlpy or [])
    except ValueError as error:
        raise typer.BadParameter(str(error)) from error
    if not 0.0 <= dropout < 1.0:
        raise typer.BadParameter(f"expected a share in [0, 1), got {dropout:g}", param_hint="'--dropout'")
    check_bins(bins, "--bins")
    if algo != "bc" and importlib.util.find_spec("d3rlpy") is None:  # before any dataset is read
        from ..adapters.d3rlpy import NEEDS_D3RLPY

        raise typer.BadParameter(f"{algo} {NEEDS_D3RLPY}", param_hint="'--algo'")
    bc = {"hidden": hidden, "dropout": dropout, "normalize": normalize, "history": history, "bins": bins,
          "symmetries": symmetries}
    chosen = list(domains or ["clevr"])
    check_domains(chosen, "all")
    if "all" in chosen:
        built = set(local_ids())
        chosen = [d for d in domain_names() if f"imaginebench/{d}-train-real-v0" in built]
    every = []
    for domain in chosen:
        started, journal = time.perf_counter(), out / f"{domain}-{algo}.journal.csv"
        try:
            results = compare(domain, algo=algo, levels=tuple(levels or LEVELS), seeds=seeds, steps=steps,
                              regimes=tuple(regimes or REGIMES),
                              options=bc if algo == "bc" else {"config": config, "sample": softmax_q},
                              workers=workers, journal=journal)
        except (ValueError, ImportError) as error:
            raise typer.BadParameter(str(error)) from error
        except KeyboardInterrupt:
            kept = (f"each training that finished is kept in {journal}; the same command goes on from there"
                    if journal.exists() else f"no training of {domain} had finished, so none is kept")
            raise KeyboardInterrupt(kept) from None
        minutes = (time.perf_counter() - started) / 60
        read_back = results.attrs.get("read_back", 0)
        resumed = (f" (and {read_back} training{'s' if read_back > 1 else ''} read back from the journal of "
                   f"an earlier run)") if read_back else ""
        options = f", dropout {dropout:g}" if dropout else ""
        options += ", states standardized" if normalize else ""
        options += ", history columns left out" if not history else ""
        options += f", each action number one of {bins} values (sampled)" if bins else ""
        options += ", every batch row a copy of itself (the domain's symmetry)" if symmetries else ""
        if algo != "bc":
            changed = ", ".join(f"{key} {value:g}" if isinstance(value, float) else
                                f"{key} {'none' if value is None else value}"
                                for key, value in changed_settings(algo, domain, config).items())
            changed = f" ({changed}; other settings d3rlpy's defaults)" if changed else ""
        model = f"2x{hidden} MLP{options}" if algo == "bc" else f"d3rlpy's networks{changed}"
        scale = read_card(f"imaginebench/{domain}-train-real-v0").scale
        policy = " (actions sampled from its softmax)" if algo == "bc" and get_domain(domain).discrete else ""
        policy = " (actions sampled from the softmax of Q)" if softmax_q else policy
        paths = write_results(results, out, note=f"{algo}: {steps:,} steps of 256, {model}{policy} on "
                              f"[state, MiniLM instruction embedding], {scale}-scale datasets; the whole "
                              f"comparison took {minutes:.1f} minutes on {os.cpu_count()} CPU cores"
                              f"{f' ({workers} workers)' if workers > 1 else ''}{resumed}, "
                              f"{time.strftime('%Y-%m-%d')}.")
        console.print(markdown_table(summary(results)))
        versus = against_real.against_real(results)
        if not versus.empty:
            console.print("\n".join(against_real.markdown(versus, regimes_run(results))))
        for path in paths:
            console.print(f"wrote {path}")
        every.append(results)
    if len(every) > 1:
        path = out / f"benchmark-{algo}.md"
        path.write_text(f"# {algo.upper()}: success rate by domain, level and data regime\n\n"
                        f"{steps:,} steps per run, {seeds} seeds, {time.strftime('%Y-%m-%d')}.\n\n"
                        f"{benchmark_table(every)}\n"
                        f"{against_real.section(against_real.benchmark_markdown(every, REGIMES))}")
        console.print(f"wrote {path}")
