"""The project functions a failing test's line calls, resolved statically through the test
module's imports (lsp/called.py), and the diagnostic that lands on their `def` line."""

from __future__ import annotations

from pathlib import Path

from codeheal.lsp.called import Called, called_functions
from codeheal.lsp.diagnostics import Place, Placed, diagnostics, place

PROJECT = {
    "shop/__init__.py": "from shop.cart import Cart\nfrom .pricing import price as cost\n",
    "shop/cart.py": (
        "class Cart:\n"
        "    def __init__(self, items):\n"
        "        self.items = items\n"
        "\n"
        "    def total(self):\n"
        "        return sum(self.items)\n"
    ),
    "shop/pricing.py": "def price(n):\n    return n * 2\n\n\ndef tax(n):\n    return n // 10\n",
    "shop/util/__init__.py": "",
    "shop/util/fmt.py": "def cents(n):\n    return str(n)\n",
}


def project(root: Path, test: str, files: dict[str, str] = PROJECT) -> Path:
    """`files` under `root` and `test` as tests/test_it.py; the test file's path."""
    for name, text in {**files, "tests/test_it.py": test}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root / "tests" / "test_it.py"


def called(root: Path, test: str, line: int) -> list[tuple[str, int, str]]:
    """(project-relative path, 0-based def line, name) of what 0-based `line` of `test` calls."""
    found = called_functions(root, project(root, test), line)
    return [(c.path.relative_to(root.resolve()).as_posix(), c.line, c.name) for c in found]


def failing_assert(message: str) -> dict:
    """tests/test_it.py::test_p's assert on line 4 failing with `message`, its traceback in the test alone."""
    return {"test": "tests/test_it.py::test_p", "exception": "AssertionError", "message": message, "line": None,
            "frames": [{"file": "tests/test_it.py", "line": 4, "function": "test_p", "source": ""}],
            "expected": None, "actual": None}


def test_a_name_imported_from_the_projects_module_is_its_def(tmp_path: Path) -> None:
    test = "from shop.pricing import price, tax as levy\n\ndef test_p():\n    assert price(3) == 5\n    assert levy(3) == 1\n"
    assert called(tmp_path, test, 3) == [("shop/pricing.py", 0, "price")]
    assert called(tmp_path, test, 4) == [("shop/pricing.py", 4, "tax")]  # by its alias


def test_a_module_imported_with_an_alias_and_its_attribute(tmp_path: Path) -> None:
    test = ("import shop.util.fmt as f\nimport shop.util.fmt\n\n"
            "def test_c():\n    assert f.cents(5) == '0.05'\n    assert shop.util.fmt.cents(5) == '0.05'\n")
    assert called(tmp_path, test, 4) == [("shop/util/fmt.py", 0, "cents")]
    assert called(tmp_path, test, 5) == [("shop/util/fmt.py", 0, "cents")]


def test_a_method_of_an_object_the_test_makes(tmp_path: Path) -> None:
    """Made on the line, or bound to a name in the test before it; re-exported by the package."""
    test = ("from shop import Cart\n\n"
            "def test_t():\n    assert Cart([1]).total() == 2\n\n"
            "def test_u(cart):\n    assert cart.total() == 2\n    cart = Cart([2])\n    assert cart.total() == 3\n")
    assert called(tmp_path, test, 3) == [("shop/cart.py", 4, "Cart.total")]
    assert called(tmp_path, test, 6) == []  # a fixture: its class unknown
    assert called(tmp_path, test, 8) == [("shop/cart.py", 4, "Cart.total")]


def test_only_the_lines_statement_counts_and_a_name_bound_to_itself_ends(tmp_path: Path) -> None:
    test = ("import pytest\nfrom shop import Cart\nfrom shop.pricing import price, tax\n\n"
            "def test_t():\n    cart = Cart([1])\n    cart = cart.total()\n    assert cart.total() == 2\n"
            "    if price(1) == 2:\n        assert tax(5) == 1\n"
            "    with pytest.raises(ValueError):\n        tax(-1)\n")
    assert called(tmp_path, test, 7) == []  # `cart = cart.total()`: no class known
    assert called(tmp_path, test, 8) == [("shop/pricing.py", 0, "price")]  # an `if`: its header alone
    assert called(tmp_path, test, 10) == [("shop/pricing.py", 4, "tax")]  # a `with`: its body too
    assert called(tmp_path, test, 4) == []  # the `def` line of a test that crashed: no statement


def test_one_re_export_of_a_packages_init_is_followed(tmp_path: Path) -> None:
    test = "from shop import cost\nimport shop\n\ndef test_c():\n    assert cost(1) == 3\n    assert shop.cost(1) == 3\n"
    assert called(tmp_path, test, 4) == [("shop/pricing.py", 0, "price")]
    assert called(tmp_path, test, 5) == [("shop/pricing.py", 0, "price")]
    twice = {**PROJECT, "shop/__init__.py": "from shop.again import cost\n", "shop/again.py": "from shop.pricing import price as cost\n"}
    assert called_functions(tmp_path, project(tmp_path, test, twice), 4) == []  # two re-exports: not followed


def test_a_name_the_test_defines_itself_or_a_builtin_is_none(tmp_path: Path) -> None:
    test = ("from shop.pricing import price\n\ndef price(n):\n    return 5\n\n"
            "def test_p():\n    assert price(3) == len('abcde')\n")
    assert called(tmp_path, test, 6) == []
    assert called(tmp_path, "def test_q():\n    assert max(1, 2) == 1\n", 1) == []


def test_of_two_project_functions_the_test_calls_the_one_its_failing_line_calls(tmp_path: Path) -> None:
    test = ("from shop.pricing import price, tax\n\n"
            "def test_p():\n    n = tax(100)\n    assert price(n) == 21\n")
    assert called(tmp_path, test, 4) == [("shop/pricing.py", 0, "price")]


def test_a_module_found_twice_is_none(tmp_path: Path) -> None:
    files = {**PROJECT, "src/shop/__init__.py": "", "src/shop/pricing.py": "def price(n):\n    return n\n"}
    test = "from shop.pricing import price\n\ndef test_p():\n    assert price(3) == 5\n"
    assert called_functions(tmp_path, project(tmp_path, test, files), 3) == []  # shop/ and src/shop/: which one?


def test_an_assert_on_a_value_is_shown_at_the_def_it_calls_related_to_the_test(tmp_path: Path) -> None:
    test_file = project(tmp_path, "from shop.pricing import price\n\ndef test_p():\n    assert price(3) == 5\n")
    failure = failing_assert("assert 6 == 5")
    pricing, test = (tmp_path / "shop" / "pricing.py").resolve(), Place(test_file.resolve(), 3)
    assert place(tmp_path, failure) == Placed(None, test, (Called(pricing, 0, "price"),))
    assert place(tmp_path, failure, {"shop/pricing.py": ["tax"]}) == Placed(None, test)  # the tests never ran it

    found = diagnostics(tmp_path, [failure], {})
    [at_def] = found[pricing]
    assert at_def.range.start.line == 0 and at_def.message == "tests/test_it.py::test_p failed: AssertionError: assert 6 == 5"
    [to_test] = at_def.related_information
    assert to_test.location.uri == test.path.as_uri() and to_test.location.range.start.line == 3
    [at_test] = found[test.path]
    assert at_test.related_information[0].message == "price, which the test's line calls: shop/pricing.py line 1"
    assert set(diagnostics(tmp_path, [failure], {}, {"shop/pricing.py": ["tax"]})) == {test.path}


def test_a_function_of_the_tests_own_helpers_is_not_shown(tmp_path: Path) -> None:
    helper = {"tests/helpers.py": "def price(n):\n    return n\n"}
    test_file = project(tmp_path, "from helpers import price\n\ndef test_p():\n    assert price(3) == 5\n", helper)
    assert [c.name for c in called_functions(tmp_path, test_file, 3)] == ["price"]
    failure = failing_assert("assert 3 == 5")
    assert place(tmp_path, failure) == Placed(None, Place(test_file.resolve(), 3))
