"""`codeheal fix` end to end with a scripted model: the shop fixture healed through
`graph.invoke` and the CLI, by a change of exactly the broken function, in the real sandbox."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from doubles import SHOP, SHOP_FIXED, scripted
from scripted_openai import ScriptedServer, is_fix_actor

from codeheal import Context, build_graph
from codeheal.cli import main
from codeheal.context import ProjectSettings, resolve
from codeheal.errors import InputError
from codeheal.evaluation.feedback import run_feedback
from codeheal.forms.project.job import project_job
from codeheal.forms.project.prompts import FIX_LESSON_ASK, FIX_SYSTEM
from codeheal.forms.project.task import parse_test_command
from codeheal.sandboxes import LocalSandbox
from codeheal_bench.diffs import whitespace_only_hunks

UNRELATED = '''```python
# shop/receipt.py
def format_cents(cents: int) -> str:
    return str(cents)
```
'''
LESSON = "bulk_discount compares with > but a tier starts at its threshold: use >=."
TEST = "python -m pytest -q"


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """A copy of the shop fixture, committed in a git repository of its own."""
    project = tmp_path / "shop"
    shutil.copytree(SHOP, project)
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "shop")
    return project


def git(project: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=project, capture_output=True, text=True, check=True).stdout


def snapshot(project: Path) -> dict[str, bytes]:
    return {str(p.relative_to(project)): p.read_bytes() for p in project.rglob("*") if p.is_file() and ".git" not in p.parts}


def fix(model, project: Path, **inputs):
    return build_graph(llm=model).compile().invoke(
        {"project": str(project), "test_command": TEST, **inputs}, context=Context(max_attempts=4, project=ProjectSettings(mutants=0)),
    )


def test_graph_invoke_heals_the_project_with_a_diff_of_only_the_broken_function(shop: Path) -> None:
    before = snapshot(shop)
    model = scripted(LESSON, SHOP_FIXED)  # reflection on the failing project, then the fix
    result = fix(model, shop)
    assert result["status"] == "passed" and result["attempts"] == 2
    assert result["diff"].splitlines()[:2] == ["--- a/shop/pricing.py", "+++ b/shop/pricing.py"]
    changed = [line for line in result["diff"].splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert changed == ["-        if quantity > threshold:", "+        if quantity >= threshold:"]
    assert result["changed"] == [{"file": "shop/pricing.py", "name": "bulk_discount", "kind": "function"}]
    assert result["files_written"] == []
    assert snapshot(shop) == before, "without apply the project is never written"
    first, second = result["history"]
    assert first["code"] == "" and first["passed_count"] == 8 and first["total"] == 12
    assert second["passed_count"] == 12 and second["changes"].keys() == {"shop/pricing.py"}


MEDIAN = '''def median(values):
    # sort a copy: the caller's list stays as it was
    ordered = sorted(values)

    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]

    # an even count: the mean of the two middle values
    return (ordered[middle] + ordered[middle + 1]) / 2
'''
MEDIAN_REWRITE = '''The even case reads one past the middle pair:

```python
def median(values):
    ordered = sorted(values)
    middle = len(ordered)//2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2
```
'''


def test_a_one_line_fix_sent_as_a_reformatted_rewrite_is_a_one_line_diff(tmp_path: Path) -> None:
    (tmp_path / "stats.py").write_text(MEDIAN)
    (tmp_path / "test_stats.py").write_text(
        "from stats import median\n\n\ndef test_odd():\n    assert median([3, 1, 2]) == 2\n\n\n"
        "def test_even():\n    assert median([4, 1, 3, 2]) == 2.5\n"
    )
    result = fix(scripted("The even case is off by one.", MEDIAN_REWRITE), tmp_path)
    assert result["status"] == "passed" and result["attempts"] == 2
    changed = [line for line in result["diff"].splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert changed == [
        "-    return (ordered[middle] + ordered[middle + 1]) / 2",
        "+    return (ordered[middle - 1] + ordered[middle]) / 2",
    ]
    assert whitespace_only_hunks(result["diff"]) == 0


def test_the_repair_prompt_summarises_the_parametrised_failures_and_fits_the_window(shop: Path) -> None:
    model = scripted(LESSON, SHOP_FIXED)
    fix(model, shop)
    prompt = model.prompt(1)
    assert model.calls[1][0].content == FIX_SYSTEM
    assert FIX_LESSON_ASK in model.prompt(0) and FIX_LESSON_ASK not in prompt
    reflection_context = model.prompt(0).split("No change has been tried yet")[0]
    assert prompt.startswith(reflection_context), "the reflection's prompt and the repair's share their prefix"
    assert "- test_total (tests/test_cart.py) failed for 4 inputs, e.g.:" in prompt
    assert "inputs quantity=10, expected=450" in prompt and "expected 450, got 500" in prompt
    assert ">>  10 |         if quantity > threshold:" not in prompt  # a failed assert stops in the test ...
    assert "shop/pricing.py, bulk_discount (lines 7-12):" in prompt  # ... the functions it calls are shown
    assert "format_cents" not in prompt, "the unrelated module is not shown"
    assert len(prompt) / 3.5 < 4096 - 1024


def test_a_reply_that_edits_an_unrelated_function_is_refused(shop: Path) -> None:
    # a later repair draws rules.REWRITE_SAMPLES rewrites
    model = scripted(LESSON, UNRELATED, "Change bulk_discount, not the receipt.", SHOP_FIXED, SHOP_FIXED)
    result = fix(model, shop)
    assert result["status"] == "passed" and result["attempts"] == 3
    refused = result["history"][1]
    assert "the reply was not applied" in refused["summary"]
    assert "shop/receipt.py::format_cents, which the failing tests do not reach" in refused["summary"]
    assert "receipt" not in result["diff"]


def test_a_reply_that_edits_the_tests_is_refused(shop: Path) -> None:
    cheat = "```python\n# tests/test_cart.py\ndef test_unknown_sku(catalog):\n    pass\n```"
    result = fix(scripted(LESSON, cheat, LESSON, cheat, cheat), shop, target="shop/pricing.py::bulk_discount")
    assert result["status"] == "stuck", "the same refused reply again: sampling found nothing new"
    assert result["attempts"] == 3 and result["history"][2]["repeat"]
    assert "tests/test_cart.py, part of the tests" in result["history"][1]["summary"]
    assert result["diff"] == ""


def test_passing_tests_need_no_model_and_no_change(shop: Path) -> None:
    result = fix(scripted(), shop, test_command="python -m pytest -q tests/test_receipt.py")
    assert result["status"] == "passed" and result["attempts"] == 1 and result["diff"] == ""


def test_apply_writes_the_fix_and_refuses_a_dirty_file(shop: Path) -> None:
    pricing = shop / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text() + "\n# work in progress\n")
    model = scripted(LESSON, SHOP_FIXED)
    with pytest.raises(InputError, match="--apply: shop/pricing.py has uncommitted changes, and the fix may change them; "
                                         "nothing was run"):
        fix(model, shop, apply=True)
    assert model.calls == [], "refused at the start, before any model call"
    assert pricing.read_text().endswith("# work in progress\n")
    git(shop, "checkout", "--", "shop/pricing.py")
    result = fix(scripted(LESSON, SHOP_FIXED), shop, apply=True)
    assert result["files_written"] == [str(pricing)]
    assert "if quantity >= threshold:" in pricing.read_text()
    assert git(shop, "status", "--porcelain") == " M shop/pricing.py\n"


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_prints_the_diff_and_leaves_the_project_alone(shop: Path, tmp_path: Path, capsys) -> None:
    def script(body: dict) -> str:
        return SHOP_FIXED if is_fix_actor(body["messages"]) else LESSON

    before = snapshot(shop)
    with ScriptedServer(script) as server:
        code, out, err = run_cli(
            capsys, "fix", str(shop), "--test", TEST, "--model", "scripted", "--base-url", server.url, "--mutants", "0",
            "--checkpointer", str(tmp_path / "checkpoints.sqlite"),
        )
    assert code == 0, err
    assert out.startswith("--- a/shop/pricing.py\n+++ b/shop/pricing.py\n")
    assert "+        if quantity >= threshold:\n" in out
    assert "attempt 1: failed, 8 of 12 passed (4 failed)" in err and "attempt 2: passed, 12 of 12 checks" in err
    assert snapshot(shop) == before


def test_cli_json_and_apply(shop: Path, tmp_path: Path, capsys) -> None:
    with ScriptedServer(lambda body: SHOP_FIXED if is_fix_actor(body["messages"]) else LESSON) as server:
        code, out, err = run_cli(
            capsys, "fix", str(shop), "--test", TEST, "--model", "scripted", "--base-url", server.url, "--mutants", "0",
            "--checkpointer", str(tmp_path / "checkpoints.sqlite"), "--json", "--apply",
        )
    assert code == 0, err
    result = json.loads(out)
    assert set(result) == {"status", "attempts", "diff", "changed", "files_written", "checked", "totals", "thread"}
    assert result["checked"] == "the test command, which runs the whole suite"
    assert result["files_written"] == [str(shop / "shop" / "pricing.py")]
    assert git(shop, "diff") .count("\n+        if quantity >= threshold:") == 1


@pytest.mark.parametrize(("args", "message"), [
    (["--test", "python -m pytest -q && echo done"], "'&&' needs a shell"),
    (["--test", "./run-tests.sh"], "give `sh ./run-tests.sh`"),
    (["--test", "sh scripts/none.sh"], "scripts/none.sh is not in the project"),
    (["--test", "python -m pytest tests/test_nothing.py"], "tests/test_nothing.py is not in the project"),
    (["--test", TEST, "--target", "shop/pricing.py::nope"], "no function nope in shop/pricing.py"),
    (["--test", TEST, "--force"], "--force only makes sense with --apply"),
])
def test_cli_refuses_bad_input_with_exit_2(shop: Path, capsys, args: list[str], message: str) -> None:
    code, _, err = run_cli(capsys, "fix", str(shop), *args, "--model", "unreachable", "--base-url", "http://127.0.0.1:9/v1")
    assert code == 2 and message in " ".join(err.split())


def test_cli_refuses_a_missing_folder(tmp_path: Path, capsys) -> None:
    code, _, err = run_cli(capsys, "fix", str(tmp_path / "nowhere"), "--test", TEST)
    assert code == 2 and "not a folder" in " ".join(err.split())


TOO_LONG = "request (10647 tokens) exceeds the available context size (4096 tokens)"


def test_a_prompt_the_server_refuses_is_a_failed_attempt_and_the_next_is_fitted_to_less(
    shop: Path, tmp_path: Path, capsys,
) -> None:
    refused = []

    def refuse_the_first_repair(body: dict) -> str | None:
        if is_fix_actor(body["messages"]) and not refused:
            refused.append(body)
            return TOO_LONG
        return None

    with ScriptedServer(lambda body: SHOP_FIXED if is_fix_actor(body["messages"]) else LESSON,
                        refuse=refuse_the_first_repair) as server:
        code, out, err = run_cli(
            capsys, "fix", str(shop), "--test", TEST, "--model", "m", "--base-url", server.url, "--mutants", "0",
            "--context-size", "4096", "--checkpointer", str(tmp_path / "checkpoints.sqlite"),
        )
    said = " ".join(err.split())
    assert code == 0, err
    assert "attempt 2: refused (no test ran)" in said and "no reply: the prompt is larger than the model's context" in said
    assert TOO_LONG in said and "attempt 3: passed" in said
    first, then = [str(c) for c in server.calls if is_fix_actor(c)][:2]
    assert len(then) < len(first), "the prompt after the refusal is fitted to half the window"
    assert "[codeheal]" not in then, "the refusal is no outcome the model is shown"


def test_a_server_refusing_every_prompt_ends_the_run_failed_saying_why_never_exit_2(
    shop: Path, tmp_path: Path, capsys,
) -> None:
    with ScriptedServer(refuse=lambda body: TOO_LONG) as server:
        code, out, err = run_cli(
            capsys, "fix", str(shop), "--test", TEST, "--model", "m", "--base-url", server.url, "--mutants", "0",
            "--checkpointer", str(tmp_path / "checkpoints.sqlite"),
        )
    assert code == 1 and out == ""
    assert "the prompt is larger than the model's context" in " ".join(err.split())
    assert server.refused and len(server.refused) == len(server.requests)


def test_a_task_that_cannot_fit_the_window_is_sent_at_its_least(shop: Path) -> None:
    model = scripted(SHOP_FIXED)
    result = build_graph(llm=model).compile().invoke(
        {"project": str(shop), "test_command": TEST},
        context=resolve({"context_size": 1300, "reflect": False, "mutants": 0}).context,
    )
    assert result["status"] == "passed", "the least prompt goes to the model, which judges it"


def test_the_projects_interpreter_makes_its_installed_packages_importable() -> None:
    files = {"tests/test_uses_a_package.py": "def test_import():\n    import libcst  # noqa: F401\n"}
    sandbox = LocalSandbox()
    bare = run_feedback(sandbox.run(project_job(files, parse_test_command("pytest -q"), 60)), None)
    assert not bare["passed"], "the sandbox's own runtime is the standard library and pytest only"
    venv = run_feedback(sandbox.run(project_job(files, parse_test_command("pytest -q"), 60, python=sys.executable)), None)
    assert venv["passed"], venv


def test_codeheals_own_environment_lends_the_project_no_plugins_but_the_report_plugin() -> None:
    files = {
        "conftest.py": "import pytest\n\n\n@pytest.fixture\ndef answer():\n    return 42\n",
        "tests/test_plugins.py": (
            "def test_no_plugin_of_codeheals_dependencies(pytestconfig, answer):\n"
            "    loaded = {name for name, _ in pytestconfig.pluginmanager.list_name_plugin()}\n"
            "    assert not loaded & {'anyio', 'langsmith_plugin', 'platformdirs'}, sorted(loaded)\n"
            "    assert answer == 42\n"
        ),
    }
    job = project_job(files, parse_test_command("pytest -q"), 60, python=sys.executable)
    assert job.env == {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    result = run_feedback(LocalSandbox().run(job), None)
    assert result["passed"] and result["total"] == 1, result
    assert project_job(files, parse_test_command("pytest -q"), 60).env == job.env, "the sandbox's own interpreter is codeheal's too"


def test_a_projects_own_virtualenv_keeps_its_installed_plugins(tmp_path: Path) -> None:
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.symlink_to(sys.executable)
    assert project_job({}, parse_test_command("pytest -q"), 60, python=str(python)).env == {}


STILL_WRONG = '''```python
# shop/pricing.py
def bulk_discount(quantity: int) -> int:
    """Percent off for buying `quantity` of one item."""
    for threshold, percent in DISCOUNT_TIERS:
        if quantity > threshold + 1:
            return percent
    return 0
```
'''


def test_a_failed_run_keeps_stdout_empty_and_shows_its_best_attempt_on_stderr(shop: Path, tmp_path: Path, capsys) -> None:
    with ScriptedServer(lambda body: STILL_WRONG if is_fix_actor(body["messages"]) else LESSON) as server:
        code, out, err = run_cli(
            capsys, "fix", str(shop), "--test", TEST, "--model", "scripted", "--base-url", server.url, "--mutants", "0",
            "--checkpointer", str(tmp_path / "checkpoints.sqlite"), "--max-attempts", "2",
        )
    assert code == 1 and out == "", "a diff that fails never reaches stdout"
    assert "+        if quantity > threshold + 1:" in err and "not healed" in err


def test_version_and_python_dash_m(capsys) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0 and capsys.readouterr().out.strip() == f"codeheal {version('codeheal')}"
    run = subprocess.run([sys.executable, "-m", "codeheal", "--version"], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == f"codeheal {version('codeheal')}"


def test_format_github_annotates_the_changed_lines_and_out_writes_the_diff(shop: Path, tmp_path: Path, capsys) -> None:
    out_file = tmp_path / "codeheal.diff"
    with ScriptedServer(lambda body: SHOP_FIXED if is_fix_actor(body["messages"]) else LESSON) as server:
        code, out, err = run_cli(
            capsys, "fix", str(shop), "--test", TEST, "--model", "scripted", "--base-url", server.url, "--mutants", "0",
            "--checkpointer", str(tmp_path / "checkpoints.sqlite"), "--format", "github", "--out", str(out_file),
        )
    assert code == 0, err
    assert out == (
        "::error file=shop/pricing.py,line=10,endLine=10,title=codeheal fix::the tests pass with this change:"
        "%0A-        if quantity > threshold:%0A+        if quantity >= threshold:\n"
    )
    assert out_file.read_text().startswith("--- a/shop/pricing.py\n")


def test_format_github_on_a_run_that_did_not_heal(shop: Path, tmp_path: Path, capsys) -> None:
    out_file = tmp_path / "codeheal.diff"
    with ScriptedServer(lambda body: STILL_WRONG if is_fix_actor(body["messages"]) else LESSON) as server:
        code, out, err = run_cli(
            capsys, "fix", str(shop), "--test", TEST, "--model", "scripted", "--base-url", server.url, "--mutants", "0",
            "--checkpointer", str(tmp_path / "checkpoints.sqlite"), "--max-attempts", "2",
            "--format", "github", "--out", str(out_file),
        )
    assert code == 1 and not out_file.exists()
    assert out.startswith("::error title=codeheal fix::not healed; last attempt: failed ") and out.count("\n") == 1


def test_verbose_shows_prompts_replies_and_each_attempts_diff_and_quiet_shows_none(shop: Path, tmp_path: Path, capsys) -> None:
    def reply(body: dict) -> str:
        return SHOP_FIXED if is_fix_actor(body["messages"]) else LESSON

    common = ("fix", str(shop), "--test", TEST, "--model", "scripted", "--mutants", "0", "--checkpointer", str(tmp_path / "c.sqlite"))
    with ScriptedServer(reply) as server:
        code, out, err = run_cli(capsys, *common, "--base-url", server.url, "-v")
        assert code == 0, err
        assert "prompt: system" in err and FIX_SYSTEM.splitlines()[0] in err, "the prompt"
        assert "reply" in err and "The tiers start at their threshold:" in err, "the reply"
        assert "attempt 1: diff" in err and "(no change)" in err, "attempt 1 tests the project as it is"
        assert "attempt 2: diff" in err and "+        if quantity >= threshold:" in err
        code, quiet_out, quiet_err = run_cli(capsys, *common, "--base-url", server.url, "-q")
    assert code == 0 and quiet_out == out
    assert "attempt" not in quiet_err and "thread" not in quiet_err
