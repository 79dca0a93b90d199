"""Real project layouts heal end to end through the CLI (scripted model): the copy stands at the
project's own path in the sandbox, in the project's own environment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from layouts import (
    SETUPTOOLS_PYPROJECT, WC_BUG, WC_FIX, WC_TEST, build_venv, hatch_editable, heal, pip_install, tree, write,
)
from scripted_openai import ScriptedServer, is_fix_actor

from codeheal.cli import main

VENV_TEST = ".venv/bin/python -m pytest -q"


def src_project(root: Path) -> Path:
    return write(root, {"pyproject.toml": SETUPTOOLS_PYPROJECT, "src/wc/__init__.py": "from .core import count_words\n",
                        "src/wc/core.py": WC_BUG, "tests/test_wc.py": WC_TEST})


@pytest.fixture(scope="module")
def setuptools_editable(tmp_path_factory) -> Path:
    root = src_project(tmp_path_factory.mktemp("setuptools-editable") / "wc")
    build_venv(root / ".venv", setuptools=True)
    pip_install(root / ".venv", "-e", str(root))
    return root


def test_src_layout_editable_setuptools_heals_at_its_own_path(setuptools_editable: Path, tmp_path, capsys) -> None:
    before = tree(setuptools_editable)
    code, out, err, calls = heal(capsys, tmp_path, setuptools_editable, VENV_TEST, {"src/wc/core.py": WC_FIX})
    assert code == 0, err
    assert "+    return len(text.split())" in out and calls == 2
    assert tree(setuptools_editable) == before  # the host's folder is only read


def test_src_layout_editable_hatchling_heals(tmp_path: Path, capsys) -> None:
    root = src_project(tmp_path / "wc")
    hatch_editable(build_venv(root / ".venv"), "wc", root / "src")
    code, out, err, _ = heal(capsys, tmp_path, root, VENV_TEST, {"src/wc/core.py": WC_FIX})
    assert code == 0, err


def test_a_non_editable_install_of_the_project_stops_before_any_model_call(tmp_path: Path, capsys) -> None:
    root = src_project(tmp_path / "wc")
    build_venv(root / ".venv", setuptools=True)
    pip_install(root / ".venv", str(root))
    code, _, err, calls = heal(capsys, tmp_path, root, VENV_TEST, {"src/wc/core.py": WC_FIX})
    assert (code, calls) == (2, 0)
    assert "site-packages/wc is an installed copy of the project's own package wc" in " ".join(err.split())
    assert "-m pip install -e" in err


CKS_BUG = "def checksum(data):\n    return sum(data) % 255\n"
CKS_FIX = "def checksum(data):\n    return sum(data) % 256\n"
BLOB = bytes(range(200)) * 4 + b"\0\xff"


def test_binary_fixtures_package_data_and_empty_folders_reach_the_sandbox_but_never_the_model(
    tmp_path: Path, capsys
) -> None:
    root = write(tmp_path / "cks", {
        "cks/__init__.py": CKS_BUG,
        "cks/table.bin": BLOB,
        "tests/data.bin": BLOB,
        "tests/test_cks.py": (
            "from importlib.resources import files\nfrom pathlib import Path\n\nfrom cks import checksum\n\n\n"
            "def test_fixture_read_by_path():\n    data = (Path(__file__).parent / 'data.bin').read_bytes()\n"
            "    assert checksum(data) == sum(data) % 256\n\n\n"
            "def test_package_data():\n    assert files('cks').joinpath('table.bin').read_bytes()[-2:] == b'\\0\\xff'\n\n\n"
            "def test_empty_folder_is_there():\n    assert (Path(__file__).parent.parent / 'out').is_dir()\n"),
    })
    (root / "out").mkdir()
    reply = f"```python\n# cks/__init__.py\n{CKS_FIX}```\n"
    with ScriptedServer(lambda body: reply if is_fix_actor(body["messages"]) else "Fix the code.") as server:
        code = main(["fix", str(root), "--test", "python -m pytest -q", "--model", "scripted", "--base-url", server.url,
                     "--mutants", "0", "--checkpointer", str(tmp_path / "checkpoints.sqlite")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "attempt 1: failed, 2 of 3 passed" in err  # only the defect fails: every file the tests read is there
    assert out.count("\n+ ") == 1 and "table.bin" not in out and "data.bin" not in out
    assert "table.bin" not in json.dumps(server.requests) and "\\u00ff" not in json.dumps(server.requests)


def test_a_misspelled_re_export_heals_with_the_lint_stage_on(tmp_path: Path, capsys) -> None:
    root = write(tmp_path / "stats", {
        "stats/__init__.py": "from .core import averge\n",
        "stats/core.py": "def average(xs):\n    return sum(xs) / len(xs)\n",
        "tests/test_stats.py": "from stats import average\n\n\ndef test_average():\n    assert average([1, 2, 3]) == 2\n",
    })
    code, out, err, _ = heal(capsys, tmp_path, root, "python -m pytest -q",
                             {"stats/__init__.py": "from .core import average\n"})
    assert code == 0, err
    assert "+from .core import average" in out and "F401" not in err


def test_src_layout_with_pythonpath_in_pytests_config_heals(tmp_path: Path, capsys) -> None:
    root = write(tmp_path / "wc", {
        "pyproject.toml": '[project]\nname = "wc"\nversion = "0.1"\n\n[tool.pytest.ini_options]\npythonpath = ["src"]\n',
        "src/wc/__init__.py": "from .core import count_words\n", "src/wc/core.py": WC_BUG, "tests/test_wc.py": WC_TEST,
    })
    code, _, err, _ = heal(capsys, tmp_path, root, "python -m pytest -q", {"src/wc/core.py": WC_FIX})
    assert code == 0, err


def test_flat_layout_with_a_dependency_in_its_venv_heals(tmp_path: Path, capsys) -> None:
    root = write(tmp_path / "report", {
        "report.py": "from tally import total\n\n\ndef mean(xs):\n    return total(xs) / (len(xs) + 1)\n",
        "test_report.py": "from report import mean\n\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2\n",
    })
    site = build_venv(root / ".venv")
    write(site, {"tally/__init__.py": "def total(xs):\n    return sum(xs)\n"})  # a dependency, installed
    code, _, err, _ = heal(capsys, tmp_path, root, VENV_TEST,
                           {"report.py": "def mean(xs):\n    return total(xs) / len(xs)\n"})
    assert code == 0, err


def test_a_namespace_package_heals(tmp_path: Path, capsys) -> None:
    root = write(tmp_path / "ns", {
        "acme/wc/__init__.py": "from acme.wc.core import count_words\n",  # acme/ has no __init__.py (PEP 420)
        "acme/wc/core.py": WC_BUG,
        "tests/test_wc.py": WC_TEST.replace("from wc import", "from acme.wc import"),
    })
    code, _, err, _ = heal(capsys, tmp_path, root, "python -m pytest -q", {"acme/wc/core.py": WC_FIX})
    assert code == 0, err


def test_a_monorepo_with_two_packages_and_a_shared_conftest_heals(tmp_path: Path, capsys) -> None:
    root = write(tmp_path / "mono", {
        "conftest.py": ("import sys\nfrom pathlib import Path\n\nfor package in ('core', 'app'):\n"
                        "    sys.path.insert(0, str(Path(__file__).parent / 'packages' / package / 'src'))\n"),
        "packages/core/src/textcore/__init__.py": WC_BUG,
        "packages/core/tests/test_core.py": WC_TEST.replace("from wc import", "from textcore import"),
        "packages/app/src/textapp/__init__.py": "from textcore import count_words\n\n\ndef summary(text):\n"
                                                "    return f'{count_words(text)} words'\n",
        "packages/app/tests/test_app.py": "from textapp import summary\n\n\ndef test_summary():\n"
                                          "    assert summary('a b') == '2 words'\n",
    })
    code, out, err, _ = heal(capsys, tmp_path, root, "python -m pytest -q", {"packages/core/src/textcore/__init__.py": WC_FIX})
    assert code == 0, err
    assert "attempt 1: failed, 0 of 2 passed" in err and "+++ b/packages/core/src/textcore/__init__.py" in out


def test_a_tox_ini_project_heals_with_its_pytest_section(tmp_path: Path, capsys) -> None:
    root = write(tmp_path / "toxed", {
        "tox.ini": "[tox]\nenvlist = py\n\n[testenv]\ncommands = pytest\n\n[pytest]\ntestpaths = checks\naddopts = -q\n",
        "wc.py": WC_BUG, "checks/test_wc.py": WC_TEST, "test_not_collected.py": "def test_x():\n    assert False\n",
    })
    code, _, err, _ = heal(capsys, tmp_path, root, "python -m pytest", {"wc.py": WC_FIX})
    assert code == 0, err  # testpaths from tox.ini: the failing file outside it never ran


def test_tests_that_write_into_tmp_path_and_their_own_folder_heal(tmp_path: Path, capsys) -> None:
    root = write(tmp_path / "writer", {
        "wc.py": WC_BUG,
        "tests/test_write.py": (
            "from pathlib import Path\n\nfrom wc import count_words\n\n\n"
            "def test_tmp_path(tmp_path):\n    (tmp_path / 'x.txt').write_text('a b c')\n"
            "    assert count_words((tmp_path / 'x.txt').read_text()) == 3\n\n\n"
            "def test_own_folder():\n    out = Path(__file__).parent / 'out.txt'\n    out.write_text('a b c')\n"
            "    assert count_words(out.read_text()) == 3\n"),
    })
    before = tree(root)
    code, _, err, _ = heal(capsys, tmp_path, root, "python -m pytest -q", {"wc.py": WC_FIX})
    assert code == 0, err
    assert tree(root) == before  # out.txt was written in the sandbox's copy only
