"""`codeheal lsp` driven as an editor drives it (pytest-lsp's client over stdio), healing the
shop fixture with the scripted model: diagnostics where the tests fail, a heal that comes
back as an edit the client applies (the server writes nothing), progress, cancellation, and
no test run in a folder the user has not trusted."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import pytest_lsp
from doubles import SHOP, SHOP_FIXED
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from scripted_openai import ScriptedServer, is_fix_actor

from codeheal.lsp.server import HEAL, HEAL_TITLE, WRITE, WRITE_TITLE

LESSON = "bulk_discount compares with > but a tier starts at its threshold: use >=."
SLOW_S = 60.0


CALC = {
    "calc.py": 'def add(a: int, b: int) -> int:\n    """The sum of a and b."""\n    ...\n',
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
}
"""A project whose function is a stub with a docstring, which its test calls."""
CALC_WRITTEN = '```python\n# calc.py\ndef add(a: int, b: int) -> int:\n    """The sum of a and b."""\n    return a + b\n```\n'
CALC_HALF = {**CALC, "tests/test_calc.py": CALC["tests/test_calc.py"] + "\n\ndef test_add_negatives():\n    assert add(-1, -2) == -3\n"}
"""CALC with a second test, which the scripted model's body (abs) does not pass."""
CALC_ABS = CALC_WRITTEN.replace("return a + b", "return abs(a) + abs(b)")


THRESHOLD_TEST = "\n\ndef test_discount_at_a_threshold():\n    assert bulk_discount(10) == 10\n"
"""A test of the shop's bug on bulk_discount's value (tests/test_pricing.py line 14), whose
traceback never leaves the test."""


def script(body: dict) -> str:
    if not is_fix_actor(body["messages"]):
        return LESSON
    if "The sum of a and b" in str(body["messages"]):
        return CALC_ABS if "test_add_negatives" in str(body["messages"]) else CALC_WRITTEN
    return SHOP_FIXED


def broken_shop(project: Path) -> None:
    """The shop, its discount tiers right, with a one-line bug that raises in its code: a
    misspelt name in bulk_discount (shop/pricing.py line 9)."""
    pricing = project / "shop" / "pricing.py"
    text = pricing.read_text(encoding="utf-8").replace("quantity > threshold", "quantity >= threshold")
    pricing.write_text(text.replace("in DISCOUNT_TIERS:", "in DISCOUNT_TIER:"), encoding="utf-8")


@pytest.fixture
def model(request: pytest.FixtureRequest) -> Iterator[ScriptedServer]:
    """The scripted model, answering after `request.param` seconds (parametrised indirectly), else at once."""
    delay = getattr(request, "param", 0.0)
    with ScriptedServer(script, delay=lambda body: delay) as server:
        yield server


@pytest.fixture
def shop(request: pytest.FixtureRequest, tmp_path: Path, model: ScriptedServer) -> Path:
    """The shop fixture (parametrised indirectly: "broken", broken_shop; "no tests", the shop
    without its tests; "threshold", the shop with THRESHOLD_TEST; "calc", CALC; "calc half",
    CALC_HALF), its model and test command in its pyproject.toml as a user sets them."""
    project = tmp_path / "shop"
    kind = getattr(request, "param", "shop")
    if kind.startswith("calc"):
        for name, text in (CALC_HALF if kind == "calc half" else CALC).items():
            (project / name).parent.mkdir(parents=True, exist_ok=True)
            (project / name).write_text(text, encoding="utf-8")
    else:
        shutil.copytree(SHOP, project)
    if kind == "broken":
        broken_shop(project)
    elif kind == "no tests":
        shutil.rmtree(project / "tests")
    elif kind == "threshold":
        with (project / "tests" / "test_pricing.py").open("a", encoding="utf-8") as tests:
            tests.write(THRESHOLD_TEST)
    (project / "pyproject.toml").write_text(
        f'[tool.codeheal]\nmodel = "scripted"\nbase-url = "{model.url}"\nmax-attempts = 3\n\n'
        f'[tool.codeheal.fix]\ntest = "{sys.executable} -m pytest -q"\nmutants = 0\n',
        encoding="utf-8",
    )
    return project


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[sys.executable, "-m", "codeheal", "lsp"]))
async def client(lsp_client: LanguageClient, shop: Path):
    lsp_client.applied = []
    lsp_client.asked = []
    converter = lsp_client.protocol._converter
    # lsprotocol reads any reply with a `command` key as a Command, even a CodeAction whose
    # command is an object (editors read the JSON as the protocol says): read it as they do.
    converter.register_structure_hook(
        types.Command | types.CodeAction,
        lambda obj, _: converter.structure(obj, types.Command if isinstance(obj.get("command"), str) else types.CodeAction),
    )

    @lsp_client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        lsp_client.applied.append(params.edit)
        return types.ApplyWorkspaceEditResult(applied=True)

    @lsp_client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def ask(params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
        """The user takes the first action offered."""
        lsp_client.asked.append(params)
        return params.actions[0] if params.actions else None

    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("neovim"),
        workspace_folders=[types.WorkspaceFolder(uri=shop.as_uri(), name="shop")],
        initialization_options={"trustedFolders": [str(shop)], "debounce": 0.05},
    ))
    yield
    await lsp_client.shutdown_session()


def open_file(client: LanguageClient, path: Path) -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="python", version=1, text=path.read_text(encoding="utf-8"))))
    return uri


async def diagnostics_of(client: LanguageClient, uri: str, timeout_s: float = 60.0) -> list[types.Diagnostic]:
    """The next diagnostics published for `uri`."""
    async def wait() -> list[types.Diagnostic]:
        while True:
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
            if uri in client.diagnostics:
                return list(client.diagnostics.pop(uri))

    return await asyncio.wait_for(wait(), timeout_s)


def apply(edit: types.WorkspaceEdit) -> None:
    """Write a WorkspaceEdit's text edits to disk, as the editor does when it saves."""
    for uri, edits in (edit.changes or {}).items():
        path = Path(uri.removeprefix("file://"))
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        for text_edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
            start, end = text_edit.range.start, text_edit.range.end
            head = "".join(lines[:start.line]) + (lines[start.line][:start.character] if start.line < len(lines) else "")
            tail = (lines[end.line][end.character:] if end.line < len(lines) else "") + "".join(lines[end.line + 1:])
            lines = (head + text_edit.new_text + tail).splitlines(keepends=True)
        path.write_text("".join(lines), encoding="utf-8")


def passes_its_tests(project: Path) -> bool:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], check=False, cwd=project,
                          capture_output=True).returncode == 0


@pytest.mark.asyncio(loop_scope="function")
async def test_a_failing_test_is_a_diagnostic_and_the_heal_an_edit_the_server_does_not_write(
    client: LanguageClient, shop: Path,
) -> None:
    cart_tests = shop / "tests" / "test_cart.py"
    uri = open_file(client, cart_tests)
    found = await diagnostics_of(client, uri)
    assert found and all(d.source == "codeheal" for d in found)
    assert found[0].range.start.line == 12  # `assert cart.total() == expected`, the innermost project line
    assert "test_total" in found[0].message and "AssertionError" in found[0].message

    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=found[0].range,
        context=types.CodeActionContext(diagnostics=found)))
    assert [a.title for a in actions] == [HEAL_TITLE]
    before = (shop / "shop" / "pricing.py").read_text(encoding="utf-8")
    said = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=HEAL, arguments=actions[0].command.arguments))
    assert said == "codeheal: healed shop/pricing.py"
    assert (shop / "shop" / "pricing.py").read_text(encoding="utf-8") == before  # the editor applies it
    [edit] = client.applied
    [(changed, edits)] = edit.changes.items()
    assert changed == (shop / "shop" / "pricing.py").as_uri()
    assert [(e.range.start.line, e.new_text.strip()) for e in edits] == [(9, "if quantity >= threshold:")]
    reports = [r for values in client.progress_reports.values() for r in values]
    assert any("attempt 2" in (getattr(r, "message", "") or "") for r in reports)

    apply(edit)
    assert passes_its_tests(shop)
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
    assert await diagnostics_of(client, uri) == []  # cleared once the tests pass


@pytest.mark.parametrize("shop", ["calc"], indirect=True)
@pytest.mark.asyncio(loop_scope="function")
async def test_write_this_function_on_a_stub_writes_it_from_the_tests_that_call_it(
    client: LanguageClient, shop: Path,
) -> None:
    uri = open_file(client, shop / "calc.py")
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=types.Range(types.Position(1, 4), types.Position(1, 4)),
        context=types.CodeActionContext(diagnostics=[])))
    [write] = [a for a in actions if a.title == WRITE_TITLE]
    assert list(write.command.arguments) == [uri, "add"]
    said = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=write.command.command, arguments=write.command.arguments))
    assert said == "codeheal: healed calc.py"
    [edit] = client.applied
    apply(edit)
    assert passes_its_tests(shop)


@pytest.mark.parametrize("model", [SLOW_S], indirect=True)
@pytest.mark.asyncio(loop_scope="function")
async def test_cancelling_the_progress_stops_the_heal_at_once(client: LanguageClient, shop: Path) -> None:
    uri = open_file(client, shop / "tests" / "test_cart.py")
    await diagnostics_of(client, uri)
    heal = asyncio.ensure_future(client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=HEAL, arguments=[uri])))
    while not any(len(reports) > 1 for reports in client.progress_reports.values()):  # begun, and a report
        await asyncio.sleep(0.05)
    [token] = client.progress_reports
    started = time.monotonic()
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    assert await asyncio.wait_for(heal, 10) == "codeheal: heal cancelled"
    assert time.monotonic() - started < 5 < SLOW_S
    assert client.applied == []


@pytest.mark.asyncio(loop_scope="function")
async def test_an_untrusted_folder_runs_nothing_until_trusted(client: LanguageClient, shop: Path) -> None:
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"codeheal": {}}))
    uri = open_file(client, shop / "tests" / "test_cart.py")
    await asyncio.wait_for(client.wait_for_notification(types.WINDOW_SHOW_MESSAGE), 10)
    assert "not a trusted folder" in client.messages[-1].message
    assert uri not in client.diagnostics
    said = await client.workspace_execute_command_async(types.ExecuteCommandParams(command=HEAL, arguments=[uri]))
    assert "not in a trusted folder" in said

    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"codeheal": {"trustedFolders": [str(shop)]}}))
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
    assert await diagnostics_of(client, uri)


@pytest.mark.asyncio(loop_scope="function")
async def test_saves_in_quick_succession_run_the_tests_once(client: LanguageClient, shop: Path) -> None:
    """Each save cancels the run in flight (the open's too) and waits out the pause: one run,
    one publication."""
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"codeheal": {"trustedFolders": [str(shop)], "debounce": 0.5}}))
    uri = open_file(client, shop / "tests" / "test_cart.py")
    for _ in range(3):
        await asyncio.sleep(0.1)
        client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
    assert await diagnostics_of(client, uri)
    with pytest.raises(TimeoutError):
        await diagnostics_of(client, uri, timeout_s=5)


@pytest.mark.parametrize("shop", ["broken"], indirect=True)
@pytest.mark.asyncio(loop_scope="function")
async def test_a_failure_raised_in_the_code_is_shown_on_its_line_there_pointing_at_the_test(
    client: LanguageClient, shop: Path,
) -> None:
    pricing = shop / "shop" / "pricing.py"
    uri = open_file(client, pricing)
    found = await diagnostics_of(client, uri)
    assert {d.range.start.line for d in found} == {8}  # `for threshold, percent in DISCOUNT_TIER:`
    assert all("NameError: name 'DISCOUNT_TIER' is not defined" in d.message for d in found)
    related = {(r.location.uri, r.location.range.start.line) for d in found for r in d.related_information}
    assert ((shop / "tests" / "test_pricing.py").as_uri(), 4) in related  # `assert bulk_discount(3) == 0`
    said = await client.workspace_execute_command_async(types.ExecuteCommandParams(command=HEAL, arguments=[uri]))
    assert said == "codeheal: healed shop/pricing.py"
    apply(client.applied[0])
    assert passes_its_tests(shop)


@pytest.mark.parametrize("shop", ["threshold"], indirect=True)
@pytest.mark.asyncio(loop_scope="function")
async def test_a_failing_assert_on_a_value_is_shown_at_the_function_it_calls(client: LanguageClient, shop: Path) -> None:
    pricing = shop / "shop" / "pricing.py"
    uri = open_file(client, pricing)
    [found] = await diagnostics_of(client, uri)
    assert found.range.start.line == 6  # `def bulk_discount(quantity: int) -> int:`
    assert found.message.startswith("test_discount_at_a_threshold failed: AssertionError: assert 0 == 10")
    [related] = found.related_information
    assert (related.location.uri, related.location.range.start.line) == ((shop / "tests" / "test_pricing.py").as_uri(), 13)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=found.range,
        context=types.CodeActionContext(diagnostics=[found])))
    assert [a.title for a in actions] == [HEAL_TITLE]


@pytest.mark.parametrize("shop", ["no tests"], indirect=True)
@pytest.mark.asyncio(loop_scope="function")
async def test_a_project_whose_tests_cannot_run_is_told_so_once(client: LanguageClient, shop: Path) -> None:
    uri = open_file(client, shop / "shop" / "pricing.py")
    await asyncio.wait_for(client.wait_for_notification(types.WINDOW_SHOW_MESSAGE), 60)
    assert "could not run" in client.messages[-1].message and "no tests were collected" in client.messages[-1].message
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(client.wait_for_notification(types.WINDOW_SHOW_MESSAGE), 10)
    assert sum("could not run" in m.message for m in client.messages) == 1


@pytest.mark.parametrize("shop", ["calc half"], indirect=True)
@pytest.mark.asyncio(loop_scope="function")
async def test_write_this_function_offers_its_best_attempt_when_none_passes(client: LanguageClient, shop: Path) -> None:
    uri = open_file(client, shop / "calc.py")
    said = await client.workspace_execute_command_async(types.ExecuteCommandParams(command=WRITE, arguments=[uri, "add"]))
    [asked] = client.asked
    assert [a.title for a in asked.actions] == ["Insert best attempt (1 of 2 tests pass)", "Discard"]
    assert said == "codeheal: inserted the best attempt in calc.py"
    [edit] = client.applied
    apply(edit)
    assert "return abs(a) + abs(b)" in (shop / "calc.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("model", [SLOW_S], indirect=True)
@pytest.mark.asyncio(loop_scope="function")
async def test_shutting_down_during_a_heal_stops_it_cleanly(client: LanguageClient, shop: Path) -> None:
    uri = open_file(client, shop / "tests" / "test_cart.py")
    await diagnostics_of(client, uri)
    heal = asyncio.ensure_future(client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=HEAL, arguments=[uri])))
    while not any(len(reports) > 1 for reports in client.progress_reports.values()):
        await asyncio.sleep(0.05)
    await asyncio.wait_for(client.shutdown_session(), 10)  # shutdown (an error reply raises here), exit, the process ends
    client.capabilities = None  # the fixture's own shutdown_session then does nothing
    with pytest.raises(JsonRpcRequestCancelled):  # the heal's request, which the server dropped
        await heal
    assert client.applied == []
