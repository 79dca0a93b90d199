"""The language server's protocol: which messages start which run, and what goes back.

- didOpen / didSave of a file in a trusted project: its tests run in the background, after
  a short pause (a later save cancels the run and starts it over); their failures replace
  the project's diagnostics, which clear when the tests pass.
- codeAction on such a diagnostic: "Heal with codeheal", a command. The command runs a fix
  run with work-done progress (attempt, phase, tokens as the model writes them, time left:
  progress.py), cancellable from the editor, and sends the change as workspace/applyEdit;
  the server writes no file itself.
- codeAction inside a stub (a docstring, no body yet): "Write this function", the same run
  with that function as its target (`fix --target`): the project's tests that call it say
  what it must do. When no attempt passes them all, the best one is offered (a message
  whose action inserts it).
- A project whose tests cannot run (none collected, a test command that fails) is said once
  in a message, until its tests run again.
- shutdown stops the runs in flight before it answers.
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
from codeheal.lsp.progress import Narration
from codeheal.lsp.runs import heal, project_of, run_tests
from codeheal.lsp.stubs import stub_at
from codeheal.progress import ProgressEvent
from codeheal.state import Attempt

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
        self.told_untestable: dict[Path, str] = {}
        """Project root -> why its tests could not run, said once (until they run)."""

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
            self._untestable(root, f"codeheal: the tests of {root} could not run: {exc}")
            self._publish(root, {})
            return
        if outcome.error and not outcome.failures:
            self._untestable(root, f"codeheal: the tests of {root} could not run: {outcome.error}")
        else:
            self.told_untestable.pop(root, None)
        lines = {Path(p).resolve(): d.lines for d in self.workspace.text_documents.values() if (p := to_fs_path(d.uri))}
        self._publish(root, diagnostics(root, outcome.failures, lines, outcome.executed))

    def _untestable(self, root: Path, text: str) -> None:
        """Say why the tests of `root` could not run, once for as long as it stays so."""
        if self.told_untestable.get(root) != text:
            self.told_untestable[root] = text
            self._tell(text, types.MessageType.Warning)

    def _publish(self, root: Path, found: dict[Path, list[types.Diagnostic]]) -> None:
        """Replace the diagnostics of `root`'s project with `found`."""
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
        try:
            project = project_of(root, self.options)
            context = project.context()
        except (InputError, ConfigError) as exc:
            return self._tell(f"codeheal: {exc}", types.MessageType.Error)
        token = str(uuid.uuid4())
        progress = _Progress(self, token, Narration(context.max_attempts, context.deadline_s))
        await progress.begin()
        started = time.time()
        target = f"{Path(to_fs_path(uri) or '').resolve().relative_to(root)}::{function}" if function else None
        task = asyncio.ensure_future(heal(project, progress.on_event, target))
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
        if healed.status == "passed":
            if not healed.changes:
                return self._tell("codeheal: the tests pass as the project is: nothing to change")
            return await self._send(root, healed.changes, started, "codeheal: heal", "healed")
        if function is not None and healed.best is not None:
            return await self._offer_best(root, healed.best, healed.summary, started)
        return self._tell(f"codeheal: not healed; last attempt: {healed.summary}", types.MessageType.Warning)

    async def _offer_best(self, root: Path, best: Attempt, summary: str, started: float) -> str:
        """Offer `best`, the best attempt of a "Write this function" that passed some of the
        tests but not all (`summary`: the last attempt's outcome)."""
        title = f"Insert best attempt ({best['passed_count']} of {best['total']} tests pass)"
        chosen = await self.window_show_message_request_async(types.ShowMessageRequestParams(
            type=types.MessageType.Warning,
            message=f"codeheal: no attempt passed every test; attempt {best['attempt']} passes "
                    f"{best['passed_count']} of {best['total']}. Last attempt: {summary}",
            actions=[types.MessageActionItem(title=title), types.MessageActionItem(title="Discard")],
        ))
        if chosen is None or chosen.title != title:
            return "codeheal: not healed; the best attempt was discarded"
        return await self._send(root, dict(best.get("changes") or {}), started, f"codeheal: {title.lower()}",
                                "inserted the best attempt in")

    async def _send(self, root: Path, changes: dict[str, str], started: float, label: str, done: str) -> str:
        """Send `changes` (project-relative path -> new text) as one edit labelled `label`;
        what happened, in words (`done` and the files)."""
        texts: dict[str, tuple[str, str]] = {}
        for relative, new in changes.items():
            path = root / relative
            if path.stat().st_mtime > started:
                return self._tell(f"codeheal: {relative} changed while healing: heal again", types.MessageType.Warning)
            texts[from_fs_path(str(path)) or ""] = (path.read_text(encoding="utf-8"), new)
        applied = await self.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=workspace_edit(texts), label=label))
        if not applied.applied:
            return self._tell(f"codeheal: the editor did not apply the change: {applied.failure_reason or 'no reason given'}",
                              types.MessageType.Warning)
        return f"codeheal: {done} {', '.join(sorted(changes))}"

    def stop_runs(self) -> None:
        """Cancel the test runs and heals in flight, and the editor's requests still open
        (pygls 2.1's shutdown cancels them while it iterates over the live table, which each
        cancelled request's callback shrinks: the `dictionary changed size during iteration`
        it logged when an editor quit during a heal)."""
        for task in [*self.test_runs.values(), *self.heals.values()]:
            task.cancel()
        protocol = self.protocol
        for msg_id, future in list(protocol._request_futures.items()):
            if msg_id != protocol.msg_id and not future.done():
                future.cancel()

    def _tell(self, text: str, kind: types.MessageType = types.MessageType.Info) -> str:
        self.window_show_message(types.ShowMessageParams(kind, text))
        return text


class _Progress:
    """Work-done progress of one heal, as progress.Narration words it."""

    def __init__(self, server: CodehealServer, token: str, narration: Narration) -> None:
        self.server, self.token, self.narration = server, token, narration
        self.shown = False

    async def begin(self) -> None:
        capabilities = self.server.client_capabilities.window
        if capabilities is None or not capabilities.work_done_progress:
            return
        await self.server.work_done_progress.create_async(self.token)
        self.server.work_done_progress.begin(self.token, types.WorkDoneProgressBegin(
            title="codeheal: healing", cancellable=True, message=self.narration.message()))
        self.shown = True

    def on_event(self, event: ProgressEvent) -> None:
        text = self.narration.on_event(event)
        if text is not None and self.shown:
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


@server.feature(types.SHUTDOWN)
def _shutdown(ls: CodehealServer, params: None) -> None:
    ls.stop_runs()


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
