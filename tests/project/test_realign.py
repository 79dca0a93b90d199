"""A model's rewrite laid back onto the original: only the lines it really changed differ."""

from __future__ import annotations

import difflib

from codeheal.forms.project.realign import realign

ORIGINAL = '''def median(values):
    # sort a copy: the caller's list stays as it was
    ordered = sorted(values)

    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]

    # an even count: the mean of the two middle values
    return (ordered[middle] + ordered[middle + 1]) / 2
'''


def changes(original: str, new: str) -> list[str]:
    """The removed and added lines from `original` to `new`."""
    diff = difflib.unified_diff(original.splitlines(), new.splitlines(), lineterm="", n=0)
    return [line for line in list(diff)[2:] if not line.startswith("@@")]


def test_a_one_line_fix_in_a_reformatted_rewrite_is_one_changed_line() -> None:
    rewrite = '''def median(values):
    ordered = sorted(values)
    middle = len(ordered)//2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2
'''
    merged = realign(ORIGINAL, rewrite)
    assert changes(ORIGINAL, merged) == [
        "-    return (ordered[middle] + ordered[middle + 1]) / 2",
        "+    return (ordered[middle - 1] + ordered[middle]) / 2",
    ]


def test_a_rewrite_that_only_reformats_gives_back_the_original() -> None:
    rewrite = ORIGINAL.replace("\n\n", "\n").replace(" // ", "//").replace("    # an even count: the mean of the two middle values\n", "")
    rewrite = rewrite.replace("return ordered[middle]", "return ordered[middle]  # odd\n")
    assert realign(ORIGINAL, rewrite) == ORIGINAL


def test_an_added_line_keeps_the_blank_lines_around_it() -> None:
    rewrite = ORIGINAL.replace("    ordered = sorted(values)\n", "    ordered = sorted(values)\n    if not ordered:\n        return None\n")
    assert changes(ORIGINAL, realign(ORIGINAL, rewrite.replace("\n\n", "\n"))) == [
        "+    if not ordered:", "+        return None",
    ]


def test_a_deleted_line_goes_and_the_comments_stay() -> None:
    rewrite = '''def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return (ordered[middle] + ordered[middle + 1]) / 2
'''
    assert changes(ORIGINAL, realign(ORIGINAL, rewrite)) == [
        "-    if len(ordered) % 2:", "-        return ordered[middle]",
    ]


def test_indentation_is_meaning_and_stays_the_rewrites() -> None:
    original = "def f(xs):\n    for x in xs:\n        print(x)\n\n    return xs\n"
    rewrite = "def f(xs):\n    for x in xs:\n        print(x)\n        return xs\n"
    assert changes(original, realign(original, rewrite)) == ["-    return xs", "+        return xs"]


def test_a_blank_line_inside_a_string_is_text_not_spacing() -> None:
    original = 'def banner():\n    return """top\n\nbottom"""\n'
    rewrite = 'def banner():\n    return """top\nbottom"""\n'
    assert realign(original, rewrite) == rewrite


def test_whitespace_inside_a_string_is_kept_as_the_rewrite_has_it() -> None:
    original = "def greet():\n\n    return 'a  b'\n"
    rewrite = "def greet():\n    return 'a b'\n"
    assert realign(original, rewrite) == rewrite, "the same tokens without spaces, another meaning: no merge"


def test_a_rewrite_that_does_not_parse_is_returned_as_it_is() -> None:
    assert realign(ORIGINAL, "def median(values:\n") == "def median(values:\n"


def test_the_rewrites_own_comments_stay_where_it_changed_code() -> None:
    rewrite = ORIGINAL.replace(
        "    return (ordered[middle] + ordered[middle + 1]) / 2\n",
        "    # the two middle values are middle - 1 and middle\n    return (ordered[middle - 1] + ordered[middle]) / 2\n",
    ).replace("    # an even count: the mean of the two middle values\n", "")
    merged = realign(ORIGINAL, rewrite)
    assert "# the two middle values are middle - 1 and middle\n    return (ordered[middle - 1]" in merged
    assert merged.startswith(ORIGINAL[: ORIGINAL.index("    # an even count")])
