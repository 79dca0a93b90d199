"""The `codeheal` command: solve a task, draw the graph, prepare the local model."""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from codeheal.errors import CodehealError, ConfigError, InputError

EXIT_PASSED, EXIT_NOT_HEALED, EXIT_BAD_INPUT, EXIT_INFRASTRUCTURE = 0, 1, 2, 3

stderr = Console(stderr=True, highlight=False)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `codeheal` console script; returns the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except (InputError, ConfigError) as exc:
        stderr.print(f"[red]codeheal: error:[/red] {exc}")
        return EXIT_BAD_INPUT
    except CodehealError as exc:
        stderr.print(f"[red]codeheal: {type(exc).__name__}:[/red] {exc}")
        return EXIT_INFRASTRUCTURE
    except KeyboardInterrupt:
        stderr.print("[yellow]interrupted[/yellow]")
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="codeheal",
        description="Self-healing code generation: write code, run the tests for real, "
        "reflect on the failure, try again.",
        epilog="Exit codes: 0 passed, 1 not healed, 2 bad input or configuration, "
        "3 model or sandbox unavailable.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    solve = commands.add_parser(
        "solve", help="solve a task against tests",
        description="Write code for TASK until TESTS pass or the attempts run out. Progress "
        "goes to stderr; the final code to stdout (or one JSON object with --json).",
    )
    solve.add_argument("task", metavar="TASK", help="the task as text, or @path to read it from a file")
    solve.add_argument("--tests", required=True, metavar="FILE",
                       help="pytest-style test_* functions or plain asserts; the code is importable as `solution`")
    solve.add_argument("--entry-point", metavar="NAME", help="the function the tests call")
    solve.add_argument("--max-attempts", type=int, metavar="N", help="hard cap on attempts (default 3)")
    solve.add_argument("--timeout", type=float, metavar="S", help="wall-clock limit of one test run, seconds (default 10)")
    solve.add_argument("--model", metavar="M", help='"local" (default, offline), an OpenAI model, or a model served at --base-url')
    solve.add_argument("--base-url", metavar="URL", help="OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp)")
    solve.add_argument("--sandbox", choices=["local", "e2b"], help="where the code runs (default local)")
    solve.add_argument("--thread", metavar="ID", help="continue this thread and its reflection memory")
    solve.add_argument("--json", action="store_true", help="print one JSON object: code, status, attempts, reflections, history")
    solve.add_argument("--out", metavar="FILE", help="also write the final code to FILE")
    solve.set_defaults(handler=_solve)

    draw = commands.add_parser("graph", help="draw the graph (Mermaid text by default)")
    output = draw.add_mutually_exclusive_group()
    output.add_argument("--png", metavar="FILE", help="write a PNG picture (needs pygraphviz)")
    output.add_argument("--mermaid", action="store_true", help="print Mermaid text (the default)")
    draw.set_defaults(handler=_graph)

    model = commands.add_parser("model", help="assemble and check the embedded local model")
    model.add_argument("--verify", action="store_true", help="re-check the sha256 of the cached model file")
    model.set_defaults(handler=_model)
    return parser


def _solve(args: argparse.Namespace) -> int:
    from codeheal.context import Context
    from codeheal.nodes.prepare import validate_input
    from codeheal.runner import run_with_progress

    request = {
        "task": _read_task(args.task),
        "tests": _read_file(args.tests, "tests"),
        "entry_point": args.entry_point,
    }
    validate_input(request)
    overrides = {
        "max_attempts": args.max_attempts, "timeout_s": args.timeout, "model": args.model,
        "base_url": args.base_url, "sandbox": args.sandbox,
    }
    context = Context(**{k: v for k, v in overrides.items() if v is not None})
    thread_id = args.thread or uuid.uuid4().hex[:12]
    result = run_with_progress(request, context, thread_id, stderr)
    if args.out:
        Path(args.out).write_text(result["code"] + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps({**result, "thread": thread_id}, indent=2))
    else:
        print(result["code"])
    return EXIT_PASSED if result["status"] == "passed" else EXIT_NOT_HEALED


def _graph(args: argparse.Namespace) -> int:
    from codeheal import graph

    drawing = graph.get_graph()
    if args.png:
        try:
            drawing.draw_png(args.png)
        except ImportError as exc:
            raise ConfigError(f"--png needs pygraphviz ({exc}); use --mermaid instead") from None
        stderr.print(f"wrote {args.png}")
    else:
        print(drawing.draw_mermaid())
    return EXIT_PASSED


def _model(args: argparse.Namespace) -> int:
    from codeheal.llm.weights import ensure_model

    with stderr.status("assembling the local model (once) ..."):
        path = ensure_model(verify=args.verify)
    print(path)
    return EXIT_PASSED


def _read_task(task: str) -> str:
    return _read_file(task[1:], "task") if task.startswith("@") else task


def _read_file(path: str, what: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read the {what} file {path!r}: {exc.strerror}") from None


if __name__ == "__main__":
    sys.exit(main())
