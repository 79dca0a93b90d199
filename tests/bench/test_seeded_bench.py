"""The seeded-bugs benchmark on a small library of its own, with a scripted OpenAI-compatible
server in place of the model: one bug healed by restoring its line, one "healed" by a change
that passes the named test file and breaks the rest of the suite. Scored, written, resumed;
the seeds of the real libraries are checked for shape (their check needs the sdists)."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest
from rich.console import Console
from scripted_openai import ScriptedServer, is_fix_actor

from codeheal.errors import ConfigError
from codeheal_bench.seeded import (
    BUGS,
    LIBRARIES,
    Library,
    SeededBug,
    library_files,
    seed,
)
from codeheal_bench.seeded_run import SeededConfig, check_seeds, run_seeded

CORE = "def total(values):\n    return sum(values)\n\n\ndef mean(values):\n    return total(values) / len(values)\n"
FILES = {
    "minilib/__init__.py": "",
    "minilib/core.py": CORE,
    "tests/test_mean.py": "from minilib.core import mean\n\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2\n",
    "tests/test_total.py": "from minilib.core import total\n\n\ndef test_total():\n    assert total([1, 2, 3]) == 6\n",
    "LICENSE": "MIT\n",
    "setup.py": "raise SystemExit('not part of the project')\n",
}
MEAN_BUG = SeededBug("minilib-mean", "minilib", "wrong operator", "minilib/core.py",
                     "    return total(values) / len(values)", "    return total(values) * len(values)",
                     "tests/test_mean.py")
TOTAL_BUG = SeededBug("minilib-total", "minilib", "off-by-one (reached through mean)", "minilib/core.py",
                      "    return sum(values)", "    return sum(values[1:])", "tests/test_mean.py")
RESTORE_MEAN = "```python\n# minilib/core.py\ndef mean(values):\n    return total(values) / len(values)\n```"
PATCH_MEAN = "```python\n# minilib/core.py\ndef mean(values):\n    return (total(values) + values[0]) / len(values)\n```"


def sdist(folder: Path) -> Library:
    """A minilib-1.0.tar.gz in `folder`, as pip would have cached it."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as archive:
        for name, text in FILES.items():
            info = tarfile.TarInfo(f"minilib-1.0/{name}")
            info.size = len(text.encode())
            archive.addfile(info, io.BytesIO(text.encode()))
    (folder / "minilib-1.0.tar.gz").write_bytes(data.getvalue())
    digest = hashlib.sha256(data.getvalue()).hexdigest()
    return Library("minilib", "1.0", digest, ("minilib", "tests", "LICENSE"), "python -m pytest -q tests")


def script(body: dict) -> str:
    messages = body["messages"]
    if not is_fix_actor(messages):
        return "mean computes the wrong value."
    text = "\n".join(str(m["content"]) for m in messages)
    return PATCH_MEAN if "values[1:]" in text else RESTORE_MEAN


def test_seeded_bugs_are_scored_healed_whole_suite_and_restored(tmp_path: Path) -> None:
    library = sdist(tmp_path)
    libraries, bugs = {"minilib": library}, (MEAN_BUG, TOTAL_BUG)
    assert check_seeds(Console(quiet=True), bugs=bugs, libraries=libraries, cache=tmp_path) == []
    out = tmp_path / "results"
    with ScriptedServer(script) as server:
        config = SeededConfig(out_dir=out, model="scripted", base_url=server.url, max_attempts=2, cache=tmp_path,
                              mutants=0)
        summary = run_seeded(config, Console(quiet=True), bugs=bugs, libraries=libraries)
        calls = len(server.requests)
        run_seeded(config, Console(quiet=True), bugs=bugs, libraries=libraries)
        assert len(server.requests) == calls, "a rerun skips the recorded bugs"
    rows = {row["program"]: row for row in summary["rows"]}
    assert summary["bugs"] == 2 and summary["healed"] == 2
    assert summary["healed_suite_passes"] == 1 and summary["restored"] == 1 and not summary["target_met"]
    assert rows["minilib-mean"]["suite_passed"] and rows["minilib-mean"]["restored"]
    assert rows["minilib-mean"]["changed_lines"] == 2 and rows["minilib-mean"]["library"] == "minilib==1.0"
    assert rows["minilib-total"]["healed"] and not rows["minilib-total"]["suite_passed"]
    assert not rows["minilib-total"]["restored"]
    assert json.loads((out / "seeded_bugs.json").read_text())["healed_suite_passes"] == 1
    assert "| minilib-total | off-by-one (reached through mean) | `python -m pytest -q tests/test_mean.py` | yes (model) | no | no |" \
        in (out / "seeded_bugs.md").read_text()
    assert "+    return total(values) / len(values)" in (out / "seeded_bugs.diff").read_text()


def test_a_project_holds_only_the_kept_entries_and_a_seed_must_match_once(tmp_path: Path) -> None:
    library = sdist(tmp_path)
    files = library_files(library, tmp_path / "minilib-1.0.tar.gz")
    assert sorted(files) == ["LICENSE", "minilib/__init__.py", "minilib/core.py", "tests/test_mean.py", "tests/test_total.py"]
    assert seed(files, MEAN_BUG)["minilib/core.py"] == CORE.replace("/ len", "* len")
    with pytest.raises(ConfigError, match="not once"):
        seed(files, SeededBug("x", "minilib", "k", "minilib/core.py", "    return", "    pass", "tests/test_mean.py"))


def test_the_real_seeds_name_their_library_a_test_file_and_a_one_line_change() -> None:
    assert len(BUGS) >= 12 and len({b.name for b in BUGS}) == len(BUGS)
    assert {b.library for b in BUGS} == set(LIBRARIES)
    for bug in BUGS:
        assert bug.line != bug.seeded and "\n" not in bug.line + bug.seeded
        assert bug.test_file.endswith(".py") and bug.file.startswith(bug.library + "/")
    kinds = " ".join(b.kind for b in BUGS)
    for kind in ("wrong operator", "off-by-one", "wrong variable", "swapped arguments", "missing call", "reached through"):
        assert kind in kinds
