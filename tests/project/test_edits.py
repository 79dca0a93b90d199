"""Replies as targeted edits: exactly the named definitions change, every other byte stays."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from codeheal_bench.diffs import whitespace_only_hunks

from codeheal.errors import InputError
from codeheal.forms.project.diff import unified_diff
from codeheal.forms.project.edits import (
    FULL_FILE_MAX_BYTES, EditRejected, Target, apply_reply, parse_target, reply_blocks,
)
from codeheal.forms.project.snapshot import read_project

SHOP = Path(__file__).with_name("fixtures") / "shop"
FIXED_DISCOUNT = '''
def bulk_discount(quantity: int) -> int:
    """Percent off for buying `quantity` of one item."""
    for threshold, percent in DISCOUNT_TIERS:
        if quantity >= threshold:
            return percent
    return 0
'''


def fence(code: str, before: str = "") -> str:
    return f"{before}\n```python\n{code.strip()}\n```\n"


@pytest.fixture
def shop() -> dict[str, str]:
    return read_project(SHOP).files


def changed_lines(old: str, new: str) -> list[tuple[str, str]]:
    pairs = list(zip(old.splitlines(keepends=True), new.splitlines(keepends=True)))
    return [(a, b) for a, b in pairs if a != b]


def test_replaces_one_function_and_keeps_every_other_byte(shop: dict[str, str]) -> None:
    result = apply_reply(shop, "Fixed:\n" + fence(FIXED_DISCOUNT))
    new = result.files["shop/pricing.py"]
    assert list(result.files) == ["shop/pricing.py"]
    assert [(c["file"], c["name"], c["kind"]) for c in result.changed] == [("shop/pricing.py", "bulk_discount", "function")]
    assert changed_lines(shop["shop/pricing.py"], new) == [
        ("        if quantity > threshold:\n", "        if quantity >= threshold:\n")
    ]


def test_the_fixed_fixture_passes_its_own_tests(shop: dict[str, str], tmp_path: Path) -> None:
    files = {**shop, **apply_reply(shop, fence(FIXED_DISCOUNT)).files}
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=tmp_path,
        capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stdout
    assert "12 passed" in run.stdout


def test_method_inside_its_class_keeps_the_class_and_other_methods(shop: dict[str, str]) -> None:
    reply = fence('''
class Cart:
  def total(self) -> int:
    # every line priced on its own
    return sum(line_total(self.catalog[s], n) for s, n in sorted(self.quantities.items()))
''')
    result = apply_reply(shop, reply)
    assert [(c["name"], c["kind"]) for c in result.changed] == [("Cart.total", "method")]
    new = result.files["shop/cart.py"]
    assert "        # every line priced on its own\n        return sum(" in new, "re-indented to the file's 4 spaces"
    old = shop["shop/cart.py"]
    assert new[: old.index("    def total")] == old[: old.index("    def total")]


def test_method_sent_without_its_class_is_found_by_its_name(shop: dict[str, str]) -> None:
    reply = fence("    def add(self, sku, quantity=1):\n        self.quantities[sku] = quantity\n")
    result = apply_reply(shop, reply)
    assert [(c["name"], c["kind"]) for c in result.changed] == [("Cart.add", "method")]
    assert "\n    def add(self, sku, quantity=1):\n        self.quantities[sku] = quantity\n" in result.files["shop/cart.py"]


def test_missing_decorators_are_kept_and_comments_above_stay() -> None:
    files = {"m.py": "import functools\n\n\n# cached\n@functools.cache\ndef f(x):\n    return x\n"}
    result = apply_reply(files, fence("def f(x):\n    return x + 1\n"))
    assert result.files["m.py"] == "import functools\n\n\n# cached\n@functools.cache\ndef f(x):\n    return x + 1\n"


def test_new_import_is_added_below_the_imports_when_the_name_is_missing() -> None:
    files = {"m.py": '"""Doc."""\nimport os\n\n\ndef f(xs):\n    return os.sep\n'}
    reply = fence("import os\nfrom collections import Counter\n\ndef f(xs):\n    return Counter(xs)\n")
    result = apply_reply(files, reply)
    assert result.files["m.py"].startswith('"""Doc."""\nimport os\nfrom collections import Counter\n\n\ndef f(xs):')
    assert [(c["name"], c["kind"]) for c in result.changed] == [
        ("f", "function"), ("from collections import Counter", "import")
    ]


def test_import_that_rebinds_a_module_name_is_refused() -> None:
    files = {"m.py": "Counter = dict\n\ndef f(xs):\n    return xs\n"}
    with pytest.raises(EditRejected, match="rebinds Counter, which m.py already defines"):
        apply_reply(files, fence("from collections import Counter\ndef f(xs):\n    return Counter(xs)\n"))


def test_a_path_that_names_no_project_file_is_a_slip_the_definition_is_found_by_name(
    shop: dict[str, str],
) -> None:
    result = apply_reply(shop, fence("# shop/nope.py\n" + FIXED_DISCOUNT))
    assert [(c["file"], c["name"]) for c in result.changed] == [("shop/pricing.py", "bulk_discount")]


def test_usage_code_is_ignored(shop: dict[str, str]) -> None:
    reply = fence(FIXED_DISCOUNT + "\nassert bulk_discount(10) == 10\nprint(bulk_discount(50))\n"
                  "if __name__ == '__main__':\n    print('ok')\n")
    assert [c["name"] for c in apply_reply(shop, reply).changed] == ["bulk_discount"]


@pytest.mark.parametrize(
    "reply, reason",
    [
        ("no code here", "no ```python block"),
        (fence("def bulk_discount(q):\n    return (\n"), "not valid Python"),
        (fence("def helper():\n    return 1\n"), "defines helper, which is not in the project"),
        (fence("class Cart:\n    def checkout(self):\n        pass\n"), "defines Cart.checkout, which is not"),
        (fence("DISCOUNT_TIERS = ()\n" + FIXED_DISCOUNT), "changes `DISCOUNT_TIERS = ()`, which is not a function"),
        (fence("class Cart:\n    limit = 3\n    def total(self):\n        return 0\n"), "changes `limit = 3` in class Cart"),
        (fence("from os import *\n" + FIXED_DISCOUNT), "is a star import"),
        (fence("# shop/cart.py\n" + FIXED_DISCOUNT), "defines bulk_discount, which is not in shop/cart.py"),
    ],
)
def test_refusals_say_why(shop: dict[str, str], reply: str, reason: str) -> None:
    with pytest.raises(EditRejected, match=reason.replace("(", r"\(").replace(")", r"\)").replace("`", ".").replace("*", r"\*")):
        apply_reply(shop, reply)


def test_a_reply_that_changes_nothing_is_refused(shop: dict[str, str]) -> None:
    source = shop["shop/pricing.py"]
    same = source[source.index("def bulk_discount"): source.index("def line_total")]
    with pytest.raises(EditRejected, match="changes nothing"):
        apply_reply(shop, fence(same))


MEDIAN = {"stats.py": '''"""Averages."""

PLACES = 2

def median(values):
    # sort a copy: the caller's list stays as it was
    ordered = sorted(values)

    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]

    # an even count: the mean of the two middle values
    return (ordered[middle] + ordered[middle + 1]) / 2


def mean(values):
    return sum(values) / len(values)
'''}


def test_a_one_line_fix_in_a_reformatted_rewrite_stays_a_one_line_change() -> None:
    reply = fence('''
def median(values):
    ordered = sorted(values)
    middle = len(ordered)//2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2
''')
    result = apply_reply(MEDIAN, reply)
    assert [(c["name"], c["kind"]) for c in result.changed] == [("median", "function")]
    diff = unified_diff(MEDIAN, result.files, context=0)
    assert diff.changed_lines == 2 and whitespace_only_hunks(diff.text) == 0
    assert changed_lines(MEDIAN["stats.py"], result.files["stats.py"]) == [(
        "    return (ordered[middle] + ordered[middle + 1]) / 2\n",
        "    return (ordered[middle - 1] + ordered[middle]) / 2\n",
    )]


def test_the_original_docstring_stays_whatever_the_reply_does_with_it() -> None:
    files = {"m.py": 'def take_nth(n, seq):\n    """Every nth item.\n\n    >>> list(take_nth(2, [10, 20, 30]))\n'
                     '    [10, 30]\n    """\n    return islice(seq, 1, None, n)\n\n\ndef plain(x):\n    return x\n'}
    dropped = fence("def take_nth(n, seq):\n    return islice(seq, 0, None, n)\n")
    edited = fence('def take_nth(n, seq):\n    """Every nth item, from the first."""\n    return islice(seq, 0, None, n)\n')
    for reply in (dropped, edited):
        assert changed_lines(files["m.py"], apply_reply(files, reply).files["m.py"]) == [
            ("    return islice(seq, 1, None, n)\n", "    return islice(seq, 0, None, n)\n"),
        ]
    invented = fence('def plain(x):\n    """The argument, as it is."""\n    return x + 0\n')
    assert apply_reply(files, invented).files["m.py"] == files["m.py"].replace("return x\n", "return x + 0\n")


def test_a_rewrite_that_only_reformats_changes_nothing_and_is_refused() -> None:
    reply = fence('''
def median(values):
    ordered = sorted(values)
    middle = len(ordered)//2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle] + ordered[middle+1]) / 2
''')
    with pytest.raises(EditRejected, match="changes nothing"):
        apply_reply(MEDIAN, reply)


def test_a_reformatted_method_keeps_its_blank_lines_inside_its_class() -> None:
    files = {"m.py": "class A:\n\n    def f(self, x):\n        y = x * 2\n\n        return y + 1\n\n    def g(self):\n        return 0\n"}
    reply = fence("class A:\n  def f(self, x):\n    y = x*2\n    return y - 1\n")
    new = apply_reply(files, reply).files["m.py"]
    assert new == files["m.py"].replace("return y + 1", "return y - 1")


def test_a_reformatted_whole_file_keeps_the_original_lines_it_did_not_change() -> None:
    reply = fence("# stats.py\n" + MEDIAN["stats.py"].replace("\n\n", "\n").replace("PLACES = 2", "PLACES = 3"))
    result = apply_reply(MEDIAN, reply)
    assert [(c["name"], c["kind"]) for c in result.changed] == [("stats.py", "file")]
    assert changed_lines(MEDIAN["stats.py"], result.files["stats.py"]) == [("PLACES = 2\n", "PLACES = 3\n")]


def test_class_statements_identical_to_the_original_are_allowed() -> None:
    files = {"m.py": 'class A:\n    """Doc."""\n    limit = 3\n\n    def f(self):\n        return 1\n'}
    reply = fence('class A:\n    """Another doc."""\n    limit = 3\n\n    def f(self):\n        return 2\n')
    assert apply_reply(files, reply).files["m.py"] == 'class A:\n    """Doc."""\n    limit = 3\n\n    def f(self):\n        return 2\n'


AMBIGUOUS = {
    "a/util.py": "def norm(x):\n    return x\n",
    "b/util.py": "def norm(x):\n    return -x\n",
}


def test_ambiguous_name_is_refused_without_a_hint() -> None:
    with pytest.raises(EditRejected, match=r"several places \(a/util.py::norm, b/util.py::norm\)"):
        apply_reply(AMBIGUOUS, fence("def norm(x):\n    return abs(x)\n"))


def test_ambiguous_name_is_settled_by_the_target_or_the_traceback() -> None:
    reply = fence("def norm(x):\n    return abs(x)\n")
    assert list(apply_reply(AMBIGUOUS, reply, hints=[parse_target("b/util.py::norm")]).files) == ["b/util.py"]
    hints = [Target("tests/test_x.py", "test_norm"), Target("a/util.py", "norm")]
    assert list(apply_reply(AMBIGUOUS, reply, hints=hints).files) == ["a/util.py"]


def test_definitions_in_the_tests_do_not_make_a_name_ambiguous() -> None:
    """The tests are never edited: a name the code defines once is that one, however many test
    files (tests/, test_*.py, *_test.py, conftest.py) define it too, as functions or methods."""
    code = {"src/pkg/wrap.py": "class Wrapper:\n    def cache(self):\n        return self._c\n"}
    for test_path in ("tests/test_wrap.py", "test_wrap.py", "pkg/wrap_test.py", "conftest.py", "testing/helpers.py"):
        files = {**code, test_path: "class DictTest:\n    def cache(self):\n        return {}\n\n\n"
                                    "def cache():\n    return None\n"}
        reply = fence("class Wrapper:\n    def cache(self):\n        return self._cache\n")
        result = apply_reply(files, reply)
        assert list(result.files) == ["src/pkg/wrap.py"], test_path
        assert [c["name"] for c in result.changed] == ["Wrapper.cache"]
        bare = apply_reply(files, fence("def cache(self):\n    return self._cache\n"))
        assert list(bare.files) == ["src/pkg/wrap.py"], test_path


def test_a_name_only_the_tests_define_twice_is_still_ambiguous() -> None:
    files = {"tests/test_a.py": "def make():\n    return 1\n", "tests/test_b.py": "def make():\n    return 2\n"}
    with pytest.raises(EditRejected, match="several places"):
        apply_reply(files, fence("def make():\n    return 3\n"))


def test_a_method_several_classes_define_is_settled_by_the_traceback_s_line() -> None:
    """A traceback frame names a method by its bare name (`__call__`): its line says which class's."""
    files = {"m.py": "class A:\n    def __call__(self):\n        return 1\n\n\n"
                     "class B:\n    def __call__(self):\n        return 2\n"}
    reply = fence("def __call__(self):\n    return 3\n")
    with pytest.raises(EditRejected, match="several places"):
        apply_reply(files, reply, hints=[Target("m.py", "__call__")])
    changed = apply_reply(files, reply, hints=[Target("m.py", "__call__", 8)])
    assert changed.files["m.py"].endswith("class B:\n    def __call__(self):\n        return 3\n")
    assert [c["name"] for c in changed.changed] == ["B.__call__"]


def test_block_headed_by_its_path_picks_the_file() -> None:
    for reply in (
        "`b/util.py`:\n```python\ndef norm(x):\n    return abs(x)\n```",
        "```python\n# file: b/util.py\ndef norm(x):\n    return abs(x)\n```",
    ):
        assert apply_reply(AMBIGUOUS, reply).files == {"b/util.py": "def norm(x):\n    return abs(x)\n"}


def test_whole_file_reply_only_for_small_files() -> None:
    small = {"m.py": "LIMIT = 3\n\ndef f():\n    return LIMIT\n"}
    result = apply_reply(small, fence("# m.py\nLIMIT = 4\n\ndef f():\n    return LIMIT\n"))
    assert result.files == {"m.py": "LIMIT = 4\n\ndef f():\n    return LIMIT\n"}
    assert [(c["name"], c["kind"]) for c in result.changed] == [("m.py", "file")]
    big = {"m.py": "LIMIT = 3\n" + "# padding\n" * (FULL_FILE_MAX_BYTES // 10) + "def f():\n    return LIMIT\n"}
    with pytest.raises(EditRejected, match="only files up to 4,000 bytes may be rewritten"):
        apply_reply(big, fence("# m.py\nLIMIT = 4\n\ndef f():\n    return LIMIT\n"))


def test_several_blocks_in_several_files(shop: dict[str, str]) -> None:
    reply = fence(FIXED_DISCOUNT) + "and\n" + fence("class Cart:\n    def total(self):\n        return 0\n")
    result = apply_reply(shop, reply)
    assert sorted(result.files) == ["shop/cart.py", "shop/pricing.py"]


def test_reply_blocks_reads_headers() -> None:
    blocks = reply_blocks("See `shop/cart.py`:\n```python\ndef a(): pass\n```\n```text\nx\n```\n```py\n# x.py\ndef b(): pass\n```")
    assert [(b.path, b.code) for b in blocks] == [("shop/cart.py", "def a(): pass\n"), ("x.py", "def b(): pass\n")]


def test_target_flag_shape() -> None:
    assert parse_target("./shop/cart.py::Cart.total") == Target("shop/cart.py", "Cart.total")
    with pytest.raises(InputError, match="FILE::FUNC"):
        parse_target("shop/cart.py")


def test_project_file_that_does_not_parse_is_bad_input() -> None:
    with pytest.raises(InputError, match="m.py line 1: the project's own file does not parse"):
        apply_reply({"m.py": "def f(:\n"}, fence("def f():\n    return 1\n"))


def test_crlf_files_keep_their_line_endings() -> None:
    files = {"m.py": "def f():\r\n    return 1\r\n\r\n\r\ndef g():\r\n    return 2\r\n"}
    new = apply_reply(files, fence("def f():\n    return 3\n")).files["m.py"]
    assert new.endswith("\r\n\r\n\r\ndef g():\r\n    return 2\r\n")


@pytest.mark.parametrize(
    "before, path",
    [("**shop/cart.py**", "shop/cart.py"), ("In `cart.py`:", "cart.py"), ("Here is the fix:", None),
     ("The test in test_cart.py fails because the tiers start at:", None)],
)
def test_the_line_before_a_fence_names_a_file_only_when_it_ends_with_one(before: str, path: str | None) -> None:
    assert reply_blocks(f"{before}\n```python\ndef a(): pass\n```")[0].path == path


def test_a_plain_helper_beside_a_correction_is_added_before_the_function_it_serves(shop: dict[str, str]) -> None:
    reply = fence("def _reaches(quantity, threshold):\n    return quantity >= threshold\n\n\n"
                  + FIXED_DISCOUNT.replace("quantity >= threshold", "_reaches(quantity, threshold)"))
    result = apply_reply(shop, reply)
    new = result.files["shop/pricing.py"]
    assert [(c["name"], c["kind"]) for c in result.changed] == [("bulk_discount", "function"), ("_reaches", "helper")]
    assert "\n\n\ndef _reaches(quantity, threshold):\n    return quantity >= threshold\n\n\ndef bulk_discount(" in new
    namespace: dict = {}
    exec(compile(new, "pricing.py", "exec"), namespace)
    assert namespace["bulk_discount"](10) == namespace["bulk_discount"](10)  # the module still runs


@pytest.mark.parametrize("helper, reason", [
    ("@staticmethod\ndef _reaches(q, t):\n    return q >= t\n", "not a plain helper function"),
    ("def _reaches(q, t=print('x')):\n    return q >= t\n", "not a plain helper function"),
    ("def DISCOUNT_TIERS(q, t):\n    return q >= t\n", "not a plain helper function"),
])
def test_a_helper_that_runs_code_or_rebinds_a_name_is_refused(shop: dict[str, str], helper: str, reason: str) -> None:
    with pytest.raises(EditRejected, match=reason):
        apply_reply(shop, fence(helper + "\n\n" + FIXED_DISCOUNT))


def test_a_definition_named_as_another_under_nfkc_is_refused() -> None:
    """Python reads `ﬁx` as `fix`: a "new helper" so named would replace fix unseen."""
    files = {"m.py": "def fix(x):\n    return x\n\n\ndef use(x):\n    return fix(x) + 1\n"}
    reply = "```python\n# m.py\ndef \ufb01x(x):\n    return 0\n\n\ndef use(x):\n    return fix(x) + 2\n```"
    with pytest.raises(EditRejected, match="a name Python reads as fix"):
        apply_reply(files, reply)


@pytest.mark.parametrize(("guard", "inert"), [
    ('__name__ == "__main__"', True), ('"__main__" == __name__', True), ('__name__ != "__main__"', False),
    ('__name__ == "__main__" or True', False),
])
def test_only_the_exact_main_guard_is_inert_at_import(guard: str, inert: bool) -> None:
    """A whole-file rewrite may not add code run at import behind a guard that runs at import."""
    files = {"m.py": "def f(x):\n    return x\n"}
    reply = f"```python\n# m.py\ndef f(x):\n    return x + 1\n\n\nif {guard}:\n    print('run')\n```"
    if inert:
        assert "return x + 1" in apply_reply(files, reply).files["m.py"]
    else:
        with pytest.raises(EditRejected, match="runs when it is imported"):
            apply_reply(files, reply)
