"""The CI recipe (docs/ci/codeheal.yml, explained in docs/ci.md): valid YAML shaped as a GitHub
Actions workflow, and every `codeheal` command it runs parses with codeheal's own flags."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import yaml

from codeheal.cli import _parser

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / "docs" / "ci" / "codeheal.yml"
EXPRESSION = re.compile(r"\$\{\{[^}]*\}\}")


def steps() -> list[dict]:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert set(workflow[True]) == {"pull_request"}, "one event, so a push to a pull request runs it once (YAML 1.1 reads `on` as true)"
    (job,) = workflow["jobs"].values()
    return job["steps"]


def codeheal_commands() -> list[list[str]]:
    commands = []
    for step in steps():
        for line in EXPRESSION.sub("VALUE", step.get("run", "")).splitlines():
            if line.strip().startswith("codeheal "):
                commands.append(shlex.split(line)[1:])
    return commands


def test_the_workflow_runs_the_tests_then_fixes_on_failure() -> None:
    by_name = {step.get("name") or step["uses"]: step for step in steps()}
    tests = by_name["Run the tests"]
    assert tests["id"] == "tests" and tests["continue-on-error"] is True
    later = [s for s in steps() if s.get("if")]
    assert later and all(s["if"] == "steps.tests.outcome == 'failure'" for s in later)
    assert "pipx install" in by_name["Install codeheal"]["run"]
    assert steps().index(by_name["Cache pip's downloads and codeheal's model cache"]) < steps().index(by_name["Install codeheal"])
    assert "kernel.apparmor_restrict_unprivileged_userns=0" in by_name[
        "Install bubblewrap and allow its user namespaces (AppArmor, Ubuntu 24.04)"]["run"]
    summary = by_name["Job summary"]["run"]
    assert "$GITHUB_STEP_SUMMARY" in summary and "steps.fix.outputs.status" in summary
    assert "could not heal" in summary.split("1)", 1)[1].split(";;", 1)[0], "only exit 1 reads as not healed"
    fix = by_name["codeheal fix"]["run"]
    assert fix.index("vars.CODEHEAL_MODEL }}\" ]") < fix.index("codeheal fix"), "the model variable is checked first"
    upload = by_name["Upload the fix"]
    assert upload["uses"].startswith("actions/upload-artifact@") and upload["with"]["path"] == "codeheal.diff"


def test_every_codeheal_command_in_it_parses_with_codeheal_flags() -> None:
    commands = codeheal_commands()
    assert commands and commands[0][0] == "fix"
    for argv in commands:
        args = _parser().parse_args(argv)  # an unknown flag or a bad value exits here
        assert args.format == "github" and args.out == "codeheal.diff"
        assert args.model == "VALUE" and args.base_url == "VALUE"


def test_ci_doc_links_the_workflow() -> None:
    doc = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    assert "](ci/codeheal.yml)" in doc and "--format github" in doc


def test_codeheal_is_installed_from_a_checkout_not_a_placeholder_url() -> None:
    """Installed from a checkout of codeheal's repository (a variable, no placeholder owner
    or release tag), and the checkout removed before `codeheal fix .` reads the project."""
    by_name = {step.get("name") or step["uses"]: step for step in steps()}
    checkout = by_name["Check out codeheal"]
    assert checkout["uses"].startswith("actions/checkout@")
    assert checkout["with"]["repository"] == "${{ vars.CODEHEAL_REPOSITORY }}"
    source = checkout["with"]["path"]
    install = by_name["Install codeheal"]["run"]
    assert f"pipx install ./{source}" in install and f"rm -rf {source}" in install
    text = WORKFLOW.read_text(encoding="utf-8")
    assert "OWNER" not in text and "git+https://" not in text


def test_the_cache_step_keeps_pips_downloads_and_the_model_cache() -> None:
    (cache,) = [step for step in steps() if step.get("uses", "").startswith("actions/cache@")]
    paths = cache["with"]["path"].split()
    assert "~/.cache/pip" in paths and "~/.cache/codeheal" in paths
    assert cache["with"]["key"] and cache["if"] == "steps.tests.outcome == 'failure'"


def test_a_run_against_an_endpoint_installs_no_model_and_the_doc_says_what_that_saves() -> None:
    """The workflow uses an endpoint: codeheal goes in without the `local` extra (llama.cpp and
    the model's parts), which a run on the embedded model would install on first use."""
    by_name = {step.get("name") or step["uses"]: step for step in steps()}
    assert "[local]" not in by_name["Install codeheal"]["run"]
    doc = " ".join((ROOT / "docs" / "ci.md").read_text(encoding="utf-8").split())
    assert "a run against a remote endpoint downloads no model" in doc
    assert "0.2 GB (235 MB) without the extra, 1.4 GB with it" in doc
