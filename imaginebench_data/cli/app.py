"""The command line's application: how a command's error or interrupt is answered (one line), and
the helpers its commands share."""

from __future__ import annotations

import functools
import os
import sys

import typer
from rich.console import Console
from rich.markup import escape

from ..pipeline.executors import EpisodeError, ExecutorError  # light: Ray is imported only when used

# A user's mistake (an unknown or malformed id, an existing version, a missing file) is
# answered with one line and exit code 2; --debug shows the traceback instead. An error in the
# work on an episode (``EpisodeError``: a fault of the code, in a worker or here) is one line too,
# naming the episode, with exit code 1: a KeyError there is no user's mistake (until 2026-12-07 it
# was answered as one, without saying where it happened).
USER_ERRORS = (KeyError, ValueError, FileNotFoundError, FileExistsError, NotADirectoryError, PermissionError,
               TimeoutError, ExecutorError)
_options = {"debug": False}
MAX_WORKERS = 4 * (os.cpu_count() or 1)
MAX_EPISODES = 10_000_000  # per dataset: about 140 times the largest paper-scale set (CLEVR easy, 72,400)
DAMAGED = "damaged (see `imaginebench verify`)"  # in `list`: a dataset folder Minari cannot read


class _App(typer.Typer):
    def __call__(self, *args, **kwargs):
        """As Typer runs a command, but a mistake in the command line (an option out of its range,
        an unknown option, a missing argument) is one line too, as the commands' own errors are,
        not Click's usage box; ``imaginebench`` alone still shows the help."""
        exceptions = sys.modules[typer.BadParameter.__module__]  # Click's, or the copy Typer carries
        try:
            code = super().__call__(*args, standalone_mode=False, **kwargs)
        except exceptions.UsageError as error:
            if type(error).__name__ == "NoArgsIsHelpError":
                error.show()
                sys.exit(error.exit_code)
            where = f" (see `{error.ctx.command_path} --help`)" if error.ctx is not None else ""
            say_error(f"{error.format_message()}{where}")
            sys.exit(error.exit_code)
        except exceptions.ClickException as error:
            error.show()
            sys.exit(error.exit_code)
        except typer.Abort:  # Typer's own name for it, whichever Click it carries
            err_console.print("aborted", highlight=False)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)

    def command(self, *args, **kwargs):
        register = super().command(*args, **kwargs)

        def decorator(function):
            @functools.wraps(function)
            def answered(*a, **k):
                try:
                    return function(*a, **k)
                except KeyboardInterrupt as error:  # a command may say what it kept: KeyboardInterrupt(text)
                    from ..core import interrupt

                    interrupt.clear()
                    if _options["debug"]:
                        raise
                    kept = str(error) or "nothing half-written was left; existing datasets are as they were"
                    err_console.print(f"interrupted: {escape(kept)}", highlight=False, soft_wrap=True)
                    raise typer.Exit(interrupt.exit_code()) from None
                except EpisodeError as error:
                    if _options["debug"]:
                        raise
                    say_error(f"{error.where} failed: {error.fault}. This is a fault of imaginebench-data or "
                              "of the domain's code, not of your input; the dataset was not written. Rerun "
                              "with --debug for the traceback, and please report it")
                    raise typer.Exit(1) from None
                except USER_ERRORS as error:
                    if _options["debug"]:
                        raise
                    message = error.args[0] if isinstance(error, KeyError) and error.args else error
                    hint = _did_you_mean(error)
                    stop = "." if hint and not str(message).endswith((".", "?", ")")) else ""
                    say_error(f"{message}{stop}{hint}")
                    raise typer.Exit(2) from None

            return register(answered)

        return decorator


def say_error(line: str) -> None:
    """``error: line`` on stderr, in one line (``line`` is plain text, not rich markup)."""
    err_console.print(f"[red]error:[/red] {escape(line)}", highlight=False, soft_wrap=True)


def examples(*commands: str) -> str:
    """A help epilog of example command lines (one per line in --help)."""
    return "Examples:\n\n" + "\n\n".join(f"  {command}" for command in commands)


def check_domains(domains: list[str] | None, *also: str) -> None:
    """A one-line error for the first of ``domains`` that is no registered domain (nor one of ``also``)."""
    from ..domains import domain_names

    known = (*also, *domain_names())
    unknown = [d for d in domains or [] if d not in known]
    if unknown:
        raise typer.BadParameter(f"unknown domain {unknown[0]!r}: expected one of {', '.join(known)}",
                                 param_hint="'--domain'")


def check_bins(bins: int, option: str) -> None:
    """A one-line error for one bin per action number: 0 (a regression) or at least 2 values."""
    if bins == 1:
        raise typer.BadParameter("expected 0 (regression) or at least 2 values, got 1",
                                 param_hint=f"'{option}'")


def _did_you_mean(error: Exception) -> str:
    """" Did you mean ID?" for an id that is close to one a recipe builds or one that is local."""
    given = getattr(error, "given", None)
    if not isinstance(given, str):
        return ""
    import difflib

    from ..datasets.ids import NAMESPACE
    from ..datasets.read import local_ids
    from ..pipeline.recipe import load_recipes

    recipes = load_recipes()
    if given in recipes:  # a recipe's id, not built yet: the message says how to build it
        return ""
    try:
        known = sorted(set(recipes) | set(local_ids()))
    except OSError:  # the datasets folder itself is wrong: its own error says so, elsewhere
        known = sorted(recipes)
    if given.strip() != given and given.strip() in known:
        return f" Did you mean {given.strip()!r}, without the white space around it?"
    given = given.strip()
    by_case = {name.lower(): name for name in known}
    if given.lower() in by_case:  # ids are lower case: 'IMAGINEBENCH/...' is a namespace of its own
        return f" Did you mean {by_case[given.lower()]!r}?"
    if "/" not in given and f"{NAMESPACE}/{given}" in known:  # the namespace left out
        return f" Did you mean {NAMESPACE + '/' + given!r}?"
    close = difflib.get_close_matches(given, known, n=1, cutoff=0.8)
    return f" Did you mean {close[0]!r}?" if close else ""


app = _App(help="Build, check, document and inspect ImagineBench datasets.", no_args_is_help=True)
console = Console(width=None if Console().is_terminal else 160)
err_console = Console(stderr=True, width=None if Console().is_terminal else 160)


@app.callback()
def main(debug: bool = typer.Option(False, "--debug", help="Show the traceback of an error.")) -> None:
    """Build, check, document and inspect ImagineBench datasets."""
    from ..core import interrupt

    _options["debug"] = debug
    interrupt.install()


def choose_numerics(option: str, recipes: list) -> None:
    """Portable numerics for this process if ``option`` or any of the model ``recipes`` asks for
    them: chosen here, before torch's first operation (see ``imagine/numerics.py``)."""
    from ..imagine import numerics

    wanted = {option} if option != "recipe" else {r.numerics for r in recipes}
    if option != "recipe" and option not in numerics.MODES:
        raise typer.BadParameter(f"expected recipe or one of {numerics.MODES}, got {option!r}",
                                 param_hint="'--numerics'")
    if "portable" in wanted:
        numerics.choose("portable")
    if wanted == set(numerics.MODES):
        console.print("[yellow]note: some of these recipes ground with the CPU's own kernels (native); in "
                      "this process they get portable ones, so their checksums may differ from committed "
                      "cards built natively[/yellow]")


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}%"
