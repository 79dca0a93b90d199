"""The layers point one way: no import cycle among codeheal's modules (function-level imports
counted too) nor among its packages, the rules rest on state and context alone, and nothing below the graph's
assembly (`codeheal/loop/`) imports it; outside codeheal/forms/ only the named exceptions
import a form's internals, and no form imports another form's package."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "codeheal"
BELOW_LOOP = (
    "state", "context", "environment", "errors", "fences", "tokens", "rules", "steps", "progress", "interrupts",
    "forms", "nodes", "prompting", "evaluation", "sandboxes", "llm",
)


def module_names() -> dict[str, Path]:
    names = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        names[".".join(parts).removesuffix(".__init__")] = path
    return names


MODULES = module_names()


def _owner(name: str) -> str:
    """The codeheal module that defines `name` (a module, or a name inside one)."""
    while name not in MODULES:
        name = name.rpartition(".")[0]
    return name


def imports_of(name: str) -> set[str]:
    """The codeheal modules `name` imports anywhere in its body."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {_owner(a.name) for a in node.names if a.name.split(".")[0] == "codeheal"}
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(max(node.level - 1, 0)):
                base = base.rpartition(".")[0]
            module = (f"{base}.{node.module}" if node.module else base) if node.level else (node.module or "")
            if module.split(".")[0] == "codeheal":
                found |= {_owner(f"{module}.{a.name}") for a in node.names}
    return found - {name}


GRAPH = {name: imports_of(name) for name in MODULES}


def first_cycle(graph: dict[str, set[str]]) -> str | None:
    """A cycle of `graph` (name -> the names it imports) as "a -> b -> a", or None."""
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> str | None:
        if name in path:
            return " -> ".join((*path[path.index(name):], name))
        if name in done:
            return None
        found = next((cycle for imported in graph[name] if (cycle := visit(imported, (*path, name)))), None)
        done.add(name)
        return found

    return next((cycle for name in graph if (cycle := visit(name, ()))), None)


def test_no_module_imports_itself_through_others() -> None:
    assert first_cycle(GRAPH) is None


def unit_of(name: str) -> str:
    """The package under codeheal a module belongs to (codeheal.forms.project.edits:
    codeheal.forms); a module directly under codeheal is a unit of its own."""
    return ".".join(name.split(".")[:2])


PACKAGES = {unit: set() for unit in map(unit_of, MODULES)}
for _name, _imported in GRAPH.items():
    PACKAGES[unit_of(_name)] |= {unit_of(m) for m in _imported} - {unit_of(_name)}


def test_no_package_imports_itself_through_others() -> None:
    """Packages point one way too: a package whose module imports another package whose module
    imports it back (context -> forms.module.settings -> forms... -> context, as it was) is a
    cycle, even when the modules themselves form none."""
    assert first_cycle(PACKAGES) is None


def test_a_cycle_is_found_and_named() -> None:
    assert first_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == "a -> b -> c -> a"
    assert first_cycle({"a": {"b"}, "b": set()}) is None


def test_the_rules_rest_on_state_and_context_only() -> None:
    assert GRAPH["codeheal.rules"] == {"codeheal.state", "codeheal.context"}


@pytest.mark.parametrize("layer", BELOW_LOOP)
def test_nothing_below_the_graphs_assembly_imports_it(layer: str) -> None:
    below = [name for name in GRAPH if name == f"codeheal.{layer}" or name.startswith(f"codeheal.{layer}.")]
    assert below, f"no module codeheal.{layer}"
    assert [(name, sorted(GRAPH[name])) for name in below if any(m.startswith("codeheal.loop") for m in GRAPH[name])] == []


def test_the_language_server_sits_at_the_clis_level() -> None:
    """codeheal/lsp/ is a client of the graph, as the CLI is: only the CLI starts it, nothing
    below imports it."""
    outside = {name: sorted(m for m in GRAPH[name] if m.startswith("codeheal.lsp"))
               for name in GRAPH if not name.startswith("codeheal.lsp") and name != "codeheal.cli"}
    assert {name: found for name, found in outside.items() if found} == {}
    assert "codeheal.lsp.server" in GRAPH["codeheal.cli"]


FORM_PACKAGES = ("codeheal.forms.module", "codeheal.forms.project")
FORM_INTERNALS_ALLOWED = {
    "codeheal.forms.choice": "the one place that knows the forms by name",
    "codeheal.cli": "the printer of a project result (its DirtyTreeError and annotations); the module form's text checks, run before the heavy imports",
    "codeheal.judge": "the public evaluate(): the module form's judging of one candidate",
    "codeheal.lsp.diagnostics": "the editor runs the project form: its rule of which files are tests, to show a failure in the code",
}


def _form_package(name: str) -> str | None:
    return next((p for p in FORM_PACKAGES if name == p or name.startswith(f"{p}.")), None)


def test_nothing_outside_the_forms_imports_a_forms_internals() -> None:
    """Shared code stays below the forms: only the named exceptions reach into a form's package."""
    def allowed(name: str) -> bool:
        return any(name == a or name.startswith(f"{a}.") for a in FORM_INTERNALS_ALLOWED)

    reaching = {
        name: sorted(m for m in GRAPH[name] if _form_package(m))
        for name in GRAPH
        if not name.startswith("codeheal.forms") and not allowed(name)
    }
    assert {name: found for name, found in reaching.items() if found} == {}


def test_no_form_imports_another_forms_package() -> None:
    crossing = {
        name: sorted(m for m in GRAPH[name] if _form_package(m) not in (None, _form_package(name)))
        for name in GRAPH
        if _form_package(name)
    }
    assert {name: found for name, found in crossing.items() if found} == {}


def test_the_shared_forms_modules_import_no_form() -> None:
    """forms/base.py is what every form answers: it knows none of them."""
    assert [m for m in GRAPH["codeheal.forms.base"] if _form_package(m)] == []
