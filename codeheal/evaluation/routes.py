"""Which of the module form's tests are judged with the candidate in the test process.

By default the candidate runs in a process of its own and the tests reach it through
codeheal_proxy, which carries plain data faithfully. Two kinds of test are judged the other
way, with the candidate imported into the test process exactly as plain pytest imports it
(docs/security.md, "Two routes"):
- **by their text**, before anything runs: tests that use the test process's own tools, which
  cannot reach another process (output and logging capture, patching, warnings, the
  environment, the working folder, the random seed, assignments to the candidate's module),
  and async tests; the tests, never the candidate, decide this;
- **by what happened**: a test during which something did not cross faithfully (the report
  plugin's "unfaithful" evidence: a handle made or used, an exception that lost its class or
  arguments, an argument that could not cross).
"""

from __future__ import annotations

import ast

TEST_PROCESS_TOOLS = frozenset({
    "capsys", "capfd", "capsysbinary", "capfdbinary", "caplog", "monkeypatch", "mocker", "recwarn",
    "mock", "patch", "Mock", "MagicMock", "AsyncMock", "NonCallableMock", "PropertyMock", "create_autospec",
    "warns", "deprecated_call", "filterwarnings", "assertWarns", "assertWarnsRegex", "assertLogs", "assertNoLogs",
    "redirect_stdout", "redirect_stderr", "logging", "warnings",
    "seed", "environ", "putenv", "unsetenv", "chdir", "setrecursionlimit", "reload", "modules",
    "stdin", "stdout", "stderr", "argv", "setattr", "asyncio", "anyio", "trio",
    "given",
})
"""Names whose use in the tests means they act on the test process itself (a fixture, a
patcher, a warnings filter, a module or attribute of it), so the candidate must be in that
process to see it; and hypothesis's `given`, whose tests call the candidate hundreds of times
(a round trip each, apart) under timing checks of their own."""
CANDIDATE = "solution"


def shared_reason(tests: ast.Module) -> str | None:
    """Why every test of `tests` is judged with the candidate in the test process, from their
    text alone; None: the candidate runs in a process of its own."""
    for node in ast.walk(tests):
        if isinstance(node, (ast.AsyncFunctionDef, ast.Await, ast.AsyncFor, ast.AsyncWith)):
            return "the tests are async"
        name = _used_name(node)
        if name in TEST_PROCESS_TOOLS:
            return f"the tests use {name}, which acts on the test process"
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)) \
                and isinstance(node.value, ast.Name) and node.value.id == CANDIDATE:
            return "the tests assign to the candidate's module"
    return None


def _used_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.arg):
        return node.arg
    if isinstance(node, ast.alias):
        return (node.asname or node.name).split(".")[-1]
    return None
