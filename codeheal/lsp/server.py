"""The language server's protocol: which messages start which run, and what goes back.

- didOpen / didSave of a file in a trusted project: its tests run in the background, after
  a short pause (a later save cancels the run and starts it over); their failures replace
  the project's diagnostics, which clear when the tests pass.
- codeAction on such a diagnostic: "Heal with codeheal", a command. The command runs a fix
  run with work-done progress (attempt, tests, tokens), cancellable from the editor, and
  sends the change as workspace/applyEdit; the server writes no file itself.
- codeAction inside a stub (a docstring, no body yet): "Write this function", the same run
  with that function as its target (`fix --target`): the project's tests that call it say
  what it must do.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from codeheal.errors import CodehealError, ConfigError, InputError
from codeheal.lsp.diagnostics import SOURCE, diagnostics
from codeheal.lsp.edits import workspace_edit
from codeheal.lsp.options import ServerOptions, options_of
from codeheal.lsp.runs import Healed, heal, project_of, run_tests
from codeheal.lsp.stubs import stub_at
from codeheal.progress import ProgressEvent

HEAL = "codeheal.heal"
HEAL_TITLE = "Heal with codeheal"
WRITE = "codeheal.write"
WRITE_TITLE = "Write this function"


class CodehealServer(LanguageServer):
    """The server's state: the editor's options, the test run and the heals in flight, and
    which files hold diagnostics of which project."""

    def __init__(self) -> None:
        super().__init__("codeheal", _version(), text_document_sync_kind=types.TextDocumentSyncKind.Full)
        self.options = ServerOptions()
        self.test_runs: dict[Path, asyncio.Task] = {}
        self.heals: dict[str, asyncio.Task] = {}
        self.marked: dict[Path, set[str]] = {}
        """Project root -> the URIs that hold its diagnostics."""
        self.told_untrusted: set[Path] = set()

    def root_of(self, uri: str) -> Path | None:
        """The workspace folder (innermost) that holds the file at `uri`; else the folder of
        its nearest pyproject.toml; None for a file that is not on disk."""
        path = to_fs_path(uri)
        if path is None:
            return None
        file = Path(path).resolve()
        folders = [Path(p).resolve() for f in self.workspace.folders.values() if (p := to_fs_path(f.uri))]
        inside = [f for f in folders if f in file.parents]
        if inside:
            return max(inside, key=lambda f: len(f.parts))
        return next((d for d in file.parents if (d / "pyproject.toml").is_file()), None)

    def schedule_tests(self, uri: str, delay_s: float) -> None:
        """Run the tests of `uri`'s project after `delay_s`, cancelling a run in flight."""
        root = self.root_of(uri)
        if root is None or not self._trusted(root):
            return
        running = self.test_runs.pop(root, None)
        if running is not None:
            running.cancel()
        self.test_runs[root] = asyncio.ensure_future(self._test(root, delay_s))

    def _trusted(self, root: Path) -> bool:
        if self.options.trusts(root):
            return True
        if root not in self.told_untrusted:
            self.told_untrusted.add(root)
            self.window_show_message(types.ShowMessageParams(
                types.MessageType.Info,
                f"codeheal: {root} is not a trusted folder, so its tests do not run. Add it to "
                "codeheal's trustedFolders setting to run them (see docs/editors.md).",
            ))
        return False

    async def _test(self, root: Path, delay_s: float) -> None:
        await asyncio.sleep(delay_s)
        try:
            outcome = await run_tests(project_of(root, self.options))
        except (InputError, ConfigError, CodehealError) as exc:
            self.window_log_message(types.LogMessageParams(types.MessageType.Error, f"codeheal: {exc}"))
            return
        if outcome.error and not outcome.failures:
            self.window_log_message(types.LogMessageParams(types.MessageType.Warning, f"codeheal: {outcome.error}"))
        lines = {Path(p).resolve(): d.lines for d in self.workspace.text_documents.values() if (p := to_fs_path(d.uri))}
        found = diagnostics(root, outcome.failures, lines)
        now = {from_fs_path(str(path)) or "": marks for path, marks in found.items()}
        for uri in self.marked.get(root, set()) - set(now):
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        for uri, marks in now.items():
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=marks))
        self.marked[root] = set(now)

    async def heal_project(self, uri: str, function: str | None = None) -> str:
        """Heal the project of `uri` (only `function` of that file, when given) with progress;
        send its change to the editor. Returns what happened, in words (also shown to the user)."""
        root = self.root_of(uri)
        if root is None or not self._trusted(root):
            return self._tell("codeheal: this file is not in a trusted folder: nothing was run")
        unsaved = [d.uri for d in self.workspace.text_documents.values() if _unsaved(d.uri, d.source)]
        if unsaved:
            return self._tell(f"codeheal: save {', '.join(unsaved)} first: the tests run on the files on disk")
        token = str(uuid.uuid4())
        progress = _Progress(self, token)
        await progress.begin()
        started = time.time()
        target = f"{Path(to_fs_path(uri) or '').resolve().relative_to(root)}::{function}" if function else None
        task = asyncio.ensure_future(heal(project_of(root, self.options), progress.on_event, target))
        self.heals[token] = task
        try:
            healed = await task
        except asyncio.CancelledError:
            progress.end("cancelled")
            return self._tell("codeheal: heal cancelled")
        except (InputError, ConfigError, CodehealError) as exc:
            progress.end("stopped")
            return self._tell(f"codeheal: {exc}", types.MessageType.Error)
        finally:
            self.heals.pop(token, None)
        progress.end(healed.status)
        return await self._send(root, healed, started)

    async def _send(self, root: Path, healed: Healed, started: float) -> str:
        if healed.status != "passed":
            return self._tell(f"codeheal: not healed; last attempt: {healed.summary}", types.MessageType.Warning)
        if not healed.changes:
            return self._tell("codeheal: the tests pass as the project is: nothing to change")
        texts: dict[str, tuple[str, str]] = {}
        for relative, new in healed.changes.items():
            path = root / relative
            if path.stat().st_mtime > started:
                return self._tell(f"codeheal: {relative} changed while healing: heal again", types.MessageType.Warning)
            texts[from_fs_path(str(path)) or ""] = (path.read_text(encoding="utf-8"), new)
        applied = await self.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=workspace_edit(texts), label="codeheal: heal"))
        if not applied.applied:
            return self._tell(f"codeheal: the editor did not apply the change: {applied.failure_reason or 'no reason given'}",
                              types.MessageType.Warning)
        return f"codeheal: healed {', '.join(sorted(healed.changes))}"

    def _tell(self, text: str, kind: types.MessageType = types.MessageType.Info) -> str:
        self.window_show_message(types.ShowMessageParams(kind, text))
        return text


class _Progress:
    """Work-done progress of one heal: the attempt, its tests and the tokens so far."""

    def __init__(self, server: CodehealServer, token: str) -> None:
        self.server, self.token = server, token
        self.shown = False
        self.attempt = self.tokens = 0

    async def begin(self) -> None:
        capabilities = self.server.client_capabilities.window
        if capabilities is None or not capabilities.work_done_progress:
            return
        await self.server.work_done_progress.create_async(self.token)
        self.server.work_done_progress.begin(self.token, types.WorkDoneProgressBegin(
            title="codeheal: healing", cancellable=True, message="testing the project as it is"))
        self.shown = True

    def on_event(self, event: ProgressEvent) -> None:
        kind = event["kind"]
        if kind == "attempt_started":
            self.attempt = event["attempt"]
            text = f"attempt {event['attempt']} of {event['max_attempts']}"
        elif kind == "candidates_written":
            self.tokens += event["prompt_tokens"] + event["completion_tokens"]
            text = f"attempt {event['attempt']}: testing ({self.tokens} tokens so far)"
        elif kind == "tests_result":
            text = (f"attempt {event['attempt']}: {event['passed_count']} of {event['total']} tests passed "
                    f"({self.tokens} tokens so far)")
        else:
            return
        if self.shown:
            self.server.work_done_progress.report(self.token, types.WorkDoneProgressReport(message=text))

    def end(self, status: str) -> None:
        if self.shown:
            self.server.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=status))


def _unsaved(uri: str, source: str) -> bool:
    path = to_fs_path(uri)
    if path is None or not Path(path).is_file():
        return False
    return Path(path).read_text(encoding="utf-8", errors="replace") != source


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("codeheal")
    except PackageNotFoundError:
        return "unknown"


server = CodehealServer()


@server.feature(types.INITIALIZE)
def _initialize(ls: CodehealServer, params: types.InitializeParams) -> None:
    ls.options = options_of(params.initialization_options)


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
def _configured(ls: CodehealServer, params: types.DidChangeConfigurationParams) -> None:
    if params.settings:
        ls.options = options_of(params.settings)
        ls.told_untrusted.clear()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def _opened(ls: CodehealServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.schedule_tests(params.text_document.uri, 0.0)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def _saved(ls: CodehealServer, params: types.DidSaveTextDocumentParams) -> None:
    ls.schedule_tests(params.text_document.uri, ls.options.debounce_s)


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
    code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.RefactorRewrite]))
def _code_actions(ls: CodehealServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    actions = []
    ours = [d for d in params.context.diagnostics if d.source == SOURCE]
    if ours:
        actions.append(types.CodeAction(
            title=HEAL_TITLE, kind=types.CodeActionKind.QuickFix, diagnostics=ours,
            command=types.Command(title=HEAL_TITLE, command=HEAL, arguments=[uri]),
        ))
    stub = stub_at(ls.workspace.get_text_document(uri).source, params.range.start.line)
    if stub is not None:
        actions.append(types.CodeAction(
            title=WRITE_TITLE, kind=types.CodeActionKind.RefactorRewrite,
            command=types.Command(title=WRITE_TITLE, command=WRITE, arguments=[uri, stub]),
        ))
    return actions


@server.command(HEAL)
async def _heal(ls: CodehealServer, uri: str) -> str:
    return await ls.heal_project(uri)


@server.command(WRITE)
async def _write(ls: CodehealServer, uri: str, function: str) -> str:
    return await ls.heal_project(uri, function)


@server.feature(types.WINDOW_WORK_DONE_PROGRESS_CANCEL)
def _cancel(ls: CodehealServer, params: types.WorkDoneProgressCancelParams) -> None:
    task = ls.heals.get(str(params.token))
    if task is not None:
        task.cancel()


def serve() -> None:
    """Speak LSP on stdin and stdout until the editor closes the connection."""
    server.start_io()
