"""The QuixBugs loader: each program as a small project its own tests run in."""

from __future__ import annotations

import ast
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from project_failures import run_project_tests
from quixbugs_data import quixbugs_or_skip

from scripted_openai import ScriptedServer

from codeheal_bench.quixbugs import CORRECT_PACKAGE, DATA_ENV, UPSTREAM, load_quixbugs, quixbugs_dir
from codeheal.errors import ConfigError
from codeheal.forms.project.edits import parse_target
from codeheal.forms.project.repair_context import repair_context
from codeheal.llm.factory import MAX_TOKENS
from codeheal.forms.project.candidate import run_failures
from codeheal.forms.project.prompts import fix_actor_messages
from codeheal.tokens import TokenCounter, estimate_tokens

DATA = quixbugs_or_skip()
PROBLEMS = {p.name: p for p in load_quixbugs(DATA)}


def test_the_twenty_programs() -> None:
    assert len(PROBLEMS) == 20
    kth = PROBLEMS["kth"]
    assert sorted(kth.files) == [
        "conftest.py", "json_testcases/kth.json", "python_programs/kth.py",
        "python_testcases/load_testdata.py", "python_testcases/test_kth.py",
    ]
    assert kth.test_command == "python -m pytest -q python_testcases/test_kth.py"
    assert kth.target == "python_programs/kth.py::kth"
    assert "python_testcases/node.py" in PROBLEMS["detect_cycle"].files


@pytest.mark.parametrize("name", sorted(PROBLEMS))
def test_every_import_of_the_tests_is_in_the_project(name: str) -> None:
    problem = PROBLEMS[name]
    target = parse_target(problem.target)
    program = ast.parse(problem.files[target.file])
    assert any(isinstance(n, ast.FunctionDef) and n.name == target.function for n in program.body)
    test = ast.parse(problem.files[f"python_testcases/test_{name}.py"])
    imported = {n.module for n in ast.walk(test) if isinstance(n, ast.ImportFrom)} - {None}
    for module in imported - {f"correct_python_programs.{name}"}:
        top = module.split(".")[0]
        local = {f"python_testcases/{module}.py", module.replace(".", "/") + ".py"}
        assert local & set(problem.files) or top in sys.stdlib_module_names or top == "pytest", module


@pytest.mark.parametrize("name, failing", [("kth", 4), ("detect_cycle", 1), ("bucketsort", 6)])
def test_the_loaded_files_are_enough_to_run_the_tests(name: str, failing: int) -> None:
    problem = PROBLEMS[name]
    args = shlex.split(problem.test_command)[3:]
    feedback = run_project_tests(problem.files, args)
    assert feedback["error"] is None and feedback["total"] > failing
    assert len(feedback["failures"]) == failing
    context = repair_context(feedback["failures"], problem.files, 1500, targets=[parse_target(problem.target)])
    assert f"python_programs/{name}.py, {name} (lines 1-" in context
    assert estimate_tokens(context) <= 1500


def test_data_folder_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert quixbugs_dir().name == "quixbugs"
    monkeypatch.setenv(DATA_ENV, str(tmp_path))
    with pytest.raises(ConfigError, match=f"no QuixBugs data at {tmp_path}.*--data DIR.*{DATA_ENV}.*{UPSTREAM}"):
        quixbugs_dir()
    assert quixbugs_dir(DATA) == DATA, "an explicit folder wins over the environment"


def test_the_corrected_programs_of_upstream_never_reach_a_project(tmp_path: Path) -> None:
    """Upstream ships correct_python_programs/, imported by every test under
    `if pytest.use_correct:`; on such a checkout no project may hold a corrected program."""
    upstream = tmp_path / "QuixBugs"
    shutil.copytree(DATA, upstream)
    reference = upstream / CORRECT_PACKAGE
    reference.mkdir()
    (reference / "__init__.py").write_text("")
    marks = {}
    for program in sorted((upstream / "python_programs").glob("*.py")):
        marks[program.stem] = f"REFERENCE_{program.stem.upper()} = 'the corrected program'\n"
        (reference / program.name).write_text(marks[program.stem] + program.read_text())
    node = upstream / "python_testcases" / "node.py"
    (reference / "node.py").write_text(marks.setdefault("node", "REFERENCE_NODE = 1\n") + node.read_text())
    test = (upstream / "python_testcases" / "test_kth.py").read_text()
    assert f"from {CORRECT_PACKAGE}.kth import kth" in test, "the upstream import the loader must not follow"

    problems = load_quixbugs(upstream)

    assert [p.name for p in problems] == sorted(PROBLEMS)
    for problem in problems:
        assert not [path for path in problem.files if CORRECT_PACKAGE in path], problem.name
        for path, text in problem.files.items():
            assert not [name for name, mark in marks.items() if mark in text], (problem.name, path)
        assert problem.files == PROBLEMS[problem.name].files


def test_the_first_prompt_of_shortest_path_lengths_is_trimmed_to_fit() -> None:
    """Its failures' expected and actual dicts of tuples tokenize densely: the prompt, counted
    by a tokenizer that needs a token per two bytes (1.5 times the estimate), is trimmed into
    the embedded model's 4096-token window with the reply's tokens left free (it once went to
    the server too large: PromptTooLargeError)."""
    problem = PROBLEMS["shortest_path_lengths"]
    feedback = run_project_tests(problem.files, shlex.split(problem.test_command)[3:])
    assert len(feedback["failures"]) == 4

    def per_two_bytes(text: str) -> list[int]:
        return list(range(len(text.encode()) // 2 + 1))

    with ScriptedServer(tokenize=per_two_bytes) as server:
        counter = TokenCounter(server.url)
        messages = fix_actor_messages(
            task=problem.task, test_command=problem.test_command, failures=run_failures(feedback),
            files=problem.files, targets=[parse_target(problem.target)], reflections=[], last_feedback=None,
            refused=[], window=4096, reply_tokens=MAX_TOKENS, counter=counter,
        )
    assert counter.prompt_tokens(messages) <= 4096 - MAX_TOKENS
    assert "python_programs/shortest_path_lengths.py, shortest_path_lengths (lines 3-16):" in messages[-1].text
