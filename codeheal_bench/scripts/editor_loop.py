"""How long does the editor loop take on a busy machine? Drives `codeheal lsp` as an editor does
(pygls's client over stdio) on the shop fixture with a one-line bug (`>` for `>=`, its own)
and with a syntax slip (a `def` missing its colon), the project's default settings (the
embedded model), while a test suite runs beside it, and times three steps of each run, each
from the editor's message to the server's answer: open -> the first diagnostics, save -> the
diagnostics again (after the server's pause after a save), the heal's command -> its edit. Each
run is a fresh server and a fresh copy of the project; the resident model server is shared (the
first run may start it). Records which phases the heal's progress showed (screen, model) and
its result. Writes benchmarks/results/editor_loop.json (or --out). Hold the model lock:

    flock /tmp/codeheal-model.lock .venv/bin/python codeheal_bench/scripts/editor_loop.py [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parents[2]
SHOP = ROOT / "tests" / "project" / "fixtures" / "shop"
RESULTS = ROOT / "benchmarks" / "results" / "editor_loop.json"
BESIDE = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow and not model", "tests/evaluation"]
"""The test suite run beside the editor, over and over, for as long as the measurement lasts."""


def slip(project: Path) -> None:
    """The shop with its tiers right and `def line_total(...) -> int` missing its colon."""
    pricing = project / "shop" / "pricing.py"
    text = pricing.read_text(encoding="utf-8").replace("quantity > threshold", "quantity >= threshold")
    pricing.write_text(text.replace(") -> int:\n    \"\"\"What", ") -> int\n    \"\"\"What"), encoding="utf-8")


CASES = {"one-line bug": lambda project: None, "syntax slip": slip}


async def one_run(case: str, folder: Path, mutants: int | None) -> dict:
    project = folder / "shop"
    shutil.copytree(SHOP, project)
    CASES[case](project)
    screen = "" if mutants is None else f"mutants = {mutants}\n"
    (project / "pyproject.toml").write_text(f'[tool.codeheal.fix]\ntest = "{sys.executable} -m pytest -q"\n{screen}',
                                            encoding="utf-8")
    client = LanguageClient("editor-loop", "1")
    published: asyncio.Queue[types.PublishDiagnosticsParams] = asyncio.Queue()
    edits: asyncio.Queue[float] = asyncio.Queue()
    progress: list[str] = []

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diagnosed(params: types.PublishDiagnosticsParams) -> None:
        if params.diagnostics:
            published.put_nowait(params)

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def edited(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        edits.put_nowait(time.perf_counter())
        return types.ApplyWorkspaceEditResult(applied=True)

    @client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
    def created(params: types.WorkDoneProgressCreateParams) -> None:
        return None

    @client.feature(types.PROGRESS)
    def reported(params: types.ProgressParams) -> None:
        message = getattr(params.value, "message", None) or (params.value.get("message") if isinstance(params.value, dict) else None)
        if message:
            progress.append(message)

    await client.start_io(sys.executable, "-m", "codeheal", "lsp")
    await client.initialize_async(types.InitializeParams(
        capabilities=types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=True)),
        workspace_folders=[types.WorkspaceFolder(uri=project.as_uri(), name="shop")],
        initialization_options={"trustedFolders": [str(project)]},
    ))
    client.initialized(types.InitializedParams())
    pricing = project / "shop" / "pricing.py"
    uri = pricing.as_uri()
    started = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=pricing.read_text(encoding="utf-8"))))
    first = await asyncio.wait_for(published.get(), 600)
    opened = time.perf_counter() - started
    await asyncio.sleep(1.0)  # the rest of that run's publications (one per file) arrive
    while not published.empty():
        published.get_nowait()
    started = time.perf_counter()
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
    await asyncio.wait_for(published.get(), 600)
    saved = time.perf_counter() - started
    started = time.perf_counter()
    said = await asyncio.wait_for(client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="codeheal.heal", arguments=[first.uri])), 1200)
    edit_at = edits.get_nowait() if not edits.empty() else None
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return {
        "case": case, "open_to_diagnostic_s": round(opened, 2), "save_to_diagnostic_s": round(saved, 2),
        "action_to_edit_s": round(edit_at - started, 2) if edit_at else None, "result": said,
        "diagnostic_at": f"{Path(first.uri).name}:{first.diagnostics[0].range.start.line + 1}",
        "phases": sorted({p.split(": ")[1] for p in progress if p.startswith("attempt ") and p.count(": ") >= 2}),
        "last_progress": progress[-2:] if progress else [],
    }


def median(runs: list[dict], key: str) -> float | None:
    values = [run[key] for run in runs if run[key] is not None]
    return round(statistics.median(values), 2) if values else None


def write(args: argparse.Namespace, runs: list[dict]) -> dict:
    """Write the runs so far and their medians to args.out; the medians."""
    summary = {case: {key: median([r for r in runs if r["case"] == case], key)
                      for key in ("open_to_diagnostic_s", "save_to_diagnostic_s", "action_to_edit_s")}
               for case in CASES if any(r["case"] == case for r in runs)}
    args.out.write_text(json.dumps({
        "question": "the editor loop's times, the embedded model, a test suite beside it" + (" (no: --quiet)" if args.quiet else ""),
        "command": "flock /tmp/codeheal-model.lock .venv/bin/python codeheal_bench/scripts/editor_loop.py "
                   + " ".join(sys.argv[1:]),
        "mutants": args.mutants, "beside": None if args.quiet else " ".join(BESIDE[2:]), "cores": os.cpu_count(),
        "load_at_end": os.getloadavg()[0], "medians": summary, "runs": runs,
    }, indent=2) + "\n", encoding="utf-8")
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--quiet", action="store_true", help="no test suite beside it")
    parser.add_argument("--mutants", type=int, help="the fix setting (0: no screen, the model heals); default: the project's default")
    args = parser.parse_args()
    beside = None if args.quiet else subprocess.Popen(
        ["sh", "-c", f"while true; do {' '.join(BESIDE)} >/dev/null 2>&1; done"], cwd=ROOT, start_new_session=True)
    runs: list[dict] = []
    try:
        for number in range(1, args.runs + 1):
            for case in CASES:
                with tempfile.TemporaryDirectory() as folder:
                    runs.append(asyncio.run(one_run(case, Path(folder), args.mutants)))
                print(f"run {number}: {json.dumps(runs[-1])}", flush=True)
                summary = write(args, runs)  # after each run: a measurement cut short keeps what it has
    finally:
        if beside is not None:
            os.killpg(beside.pid, 15)
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
