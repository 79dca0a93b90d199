"""pytest's own tools reaching the candidate: capture, logging, monkeypatch, mock, tmp_path,
fixtures, parametrize, marks, approx, recwarn."""

from functools import partial

from tests.fidelity.shapes import shape

S = partial(shape, "pytest_tools")

SHAPES = [
    S("capsys_print", """
        def test_greet_prints(capsys):
            greet("ann")
            assert capsys.readouterr().out == "Hello, ann!\\n"
        """, """
        def greet(name):
            print(f"Hello, {name}!")
        """, """
        def greet(name):
            print(f"Hello {name}!")
        """),
    S("capsys_stderr", """
        import pytest

        def test_warning_to_stderr(capsys):
            assert parse_int_or_zero("x") == 0
            captured = capsys.readouterr()
            assert "invalid" in captured.err
            assert captured.out == ""
        """, """
        import sys

        def parse_int_or_zero(text):
            try:
                return int(text)
            except ValueError:
                print(f"invalid number {text!r}", file=sys.stderr)
                return 0
        """, """
        def parse_int_or_zero(text):
            try:
                return int(text)
            except ValueError:
                print(f"invalid number {text!r}")
                return 0
        """),
    S("capfd_os_write", """
        def test_fd_level_output(capfd):
            shout("hey")
            assert capfd.readouterr().out == "HEY\\n"
        """, """
        import os

        def shout(text):
            os.write(1, (text.upper() + "\\n").encode())
        """, """
        import os

        def shout(text):
            os.write(1, (text + "\\n").encode())
        """),
    S("caplog_warning", """
        import logging

        def test_logs_warning(caplog):
            with caplog.at_level(logging.WARNING):
                assert divide_or_none(1, 0) is None
            assert "division by zero" in caplog.text
            assert caplog.records[0].levelname == "WARNING"
        """, """
        import logging

        log = logging.getLogger(__name__)

        def divide_or_none(a, b):
            try:
                return a / b
            except ZeroDivisionError:
                log.warning("division by zero: %s / %s", a, b)
                return None
        """, """
        import logging

        log = logging.getLogger(__name__)

        def divide_or_none(a, b):
            try:
                return a / b
            except ZeroDivisionError:
                log.info("division by zero: %s / %s", a, b)
                return None
        """),
    S("monkeypatch_setattr_time", """
        import time

        def test_frozen_clock(monkeypatch):
            monkeypatch.setattr(time, "time", lambda: 1000.0)
            assert seconds_since(990.0) == 10.0
        """, """
        import time

        def seconds_since(start):
            return time.time() - start
        """, """
        import time

        def seconds_since(start):
            return time.monotonic() - start
        """),
    S("monkeypatch_setenv", """
        def test_reads_env(monkeypatch):
            monkeypatch.setenv("APP_MODE", "prod")
            assert app_mode() == "prod"

        def test_default(monkeypatch):
            monkeypatch.delenv("APP_MODE", raising=False)
            assert app_mode() == "dev"
        """, """
        import os

        def app_mode():
            return os.environ.get("APP_MODE", "dev")
        """, """
        import os

        MODE = os.environ.get("APP_MODE", "dev")

        def app_mode():
            return MODE
        """),
    S("monkeypatch_chdir", """
        def test_relative_file(tmp_path, monkeypatch):
            (tmp_path / "config.ini").write_text("x=1")
            monkeypatch.chdir(tmp_path)
            assert read_local_config() == "x=1"
        """, """
        from pathlib import Path

        def read_local_config():
            return Path("config.ini").read_text()
        """, """
        from pathlib import Path

        def read_local_config():
            return (Path(__file__).parent / "config.ini").read_text()
        """),
    S("mock_patch_expanduser", """
        from unittest import mock

        def test_config_path_in_home():
            with mock.patch("os.path.expanduser", return_value="/home/tester"):
                assert config_path() == "/home/tester/.apprc"
        """, """
        import os

        def config_path():
            return os.path.join(os.path.expanduser("~"), ".apprc")
        """, """
        import os

        def config_path():
            return os.path.join(os.environ.get("HOME", "/"), ".apprc")
        """),
    S("mock_patch_object_module", """
        from unittest import mock
        import random

        def test_pick_uses_random_choice():
            with mock.patch.object(random, "choice", return_value="b") as fake:
                assert pick(["a", "b", "c"]) == "b"
            fake.assert_called_once_with(["a", "b", "c"])
        """, """
        import random

        def pick(items):
            return random.choice(items)
        """, """
        import random

        def pick(items):
            return items[random.randrange(len(items))]
        """),
    S("magicmock_passed_in", """
        from unittest.mock import MagicMock

        def test_notifier_sends():
            sender = MagicMock()
            notify_all(sender, ["a@x", "b@x"], "hi")
            sender.send.assert_called_with("b@x", "hi")
            assert sender.send.call_count == 2
        """, """
        def notify_all(sender, addresses, message):
            for address in addresses:
                sender.send(address, message)
        """, """
        def notify_all(sender, addresses, message):
            for address in addresses:
                sender.send(message, address)
        """),
    S("mock_return_values_side_effect", """
        from unittest.mock import Mock

        def test_reads_until_empty():
            source = Mock()
            source.read.side_effect = ["ab", "cd", ""]
            assert read_all(source) == "abcd"
            assert source.read.call_count == 3
        """, """
        def read_all(source):
            parts = []
            while chunk := source.read():
                parts.append(chunk)
            return "".join(parts)
        """, """
        def read_all(source):
            return source.read() + source.read()
        """),
    S("tmp_path_written_by_candidate", """
        def test_writes_csv(tmp_path):
            target = tmp_path / "out.csv"
            write_rows(target, [("a", 1), ("b", 2)])
            assert target.read_text().splitlines() == ["a,1", "b,2"]
        """, """
        import csv

        def write_rows(path, rows):
            with open(path, "w", newline="") as handle:
                csv.writer(handle, lineterminator="\\n").writerows(rows)
        """, """
        def write_rows(path, rows):
            with open(path, "w") as handle:
                handle.write("\\n".join(f"{a};{b}" for a, b in rows))
        """),
    S("fixture_provides_data", """
        import pytest

        @pytest.fixture
        def inventory():
            return {"apple": 3, "pear": 0}

        def test_in_stock(inventory):
            assert in_stock(inventory) == ["apple"]
        """, """
        def in_stock(inventory):
            return [name for name, qty in inventory.items() if qty > 0]
        """, """
        def in_stock(inventory):
            return [name for name, qty in inventory.items() if qty >= 0]
        """),
    S("yield_fixture_teardown", """
        import pytest

        @pytest.fixture
        def registry():
            r = Registry()
            yield r
            r.clear()
            assert len(r) == 0

        def test_register(registry):
            registry.register("a")
            registry.register("a")
            assert len(registry) == 1
        """, """
        class Registry:
            def __init__(self):
                self.names = set()

            def register(self, name):
                self.names.add(name)

            def clear(self):
                self.names.clear()

            def __len__(self):
                return len(self.names)
        """, """
        class Registry:
            def __init__(self):
                self.names = []

            def register(self, name):
                self.names.append(name)

            def clear(self):
                self.names.clear()

            def __len__(self):
                return len(self.names)
        """),
    S("parametrize_cases", """
        import pytest

        @pytest.mark.parametrize("text,expected", [
            ("racecar", True), ("Racecar", True), ("hello", False), ("", True),
        ])
        def test_palindrome(text, expected):
            assert is_palindrome(text) is expected
        """, """
        def is_palindrome(text):
            text = text.lower()
            return text == text[::-1]
        """, """
        def is_palindrome(text):
            return text == text[::-1]
        """),
    S("parametrize_ids_and_class", """
        import pytest

        class TestRoman:
            @pytest.mark.parametrize("n,roman", [(4, "IV"), (9, "IX"), (14, "XIV")], ids=["four", "nine", "fourteen"])
            def test_to_roman(self, n, roman):
                assert to_roman(n) == roman
        """, """
        def to_roman(n):
            table = [(10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
            out = ""
            for value, letters in table:
                while n >= value:
                    out += letters
                    n -= value
            return out
        """, """
        def to_roman(n):
            table = [(10, "X"), (5, "V"), (1, "I")]
            out = ""
            for value, letters in table:
                while n >= value:
                    out += letters
                    n -= value
            return out
        """),
    S("marks_skip_xfail", """
        import sys
        import pytest

        @pytest.mark.skipif(sys.platform == "nope", reason="never")
        def test_runs():
            assert clamp(5, 0, 3) == 3
            assert clamp(-2, 0, 3) == 0

        @pytest.mark.xfail(reason="negative ranges unsupported", strict=True)
        def test_known_limit():
            assert clamp(1, 3, 0) == 1

        @pytest.mark.skip(reason="later")
        def test_skipped():
            assert False
        """, """
        def clamp(x, lo, hi):
            return max(lo, min(hi, x))
        """, """
        def clamp(x, lo, hi):
            return min(hi, x)
        """),
    S("approx_floats", """
        import pytest

        def test_mean_approx():
            assert mean([0.1, 0.2, 0.3]) == pytest.approx(0.2)

        def test_list_approx():
            assert normalize([1, 1, 2]) == pytest.approx([0.25, 0.25, 0.5])
        """, """
        def mean(values):
            return sum(values) / len(values)

        def normalize(values):
            total = sum(values)
            return [v / total for v in values]
        """, """
        def mean(values):
            return sum(values) / len(values)

        def normalize(values):
            top = max(values)
            return [v / top for v in values]
        """),
    S("recwarn_fixture", """
        def test_recorded_warning(recwarn):
            assert legacy_sum([1, 2]) == 3
            assert len(recwarn) == 1
            assert recwarn.pop(FutureWarning)
        """, """
        import warnings

        def legacy_sum(values):
            warnings.warn("legacy_sum will change", FutureWarning)
            return sum(values)
        """, """
        import warnings

        def legacy_sum(values):
            warnings.warn("legacy_sum will change", DeprecationWarning)
            return sum(values)
        """),
    S("conftest_like_fixture_chain", """
        import pytest

        @pytest.fixture
        def numbers():
            return [5, 3, 8]

        @pytest.fixture
        def sorted_numbers(numbers):
            return sort_copy(numbers)

        def test_sorted(sorted_numbers, numbers):
            assert sorted_numbers == [3, 5, 8]
            assert numbers == [5, 3, 8]
        """, """
        def sort_copy(values):
            return sorted(values)
        """, """
        def sort_copy(values):
            values.sort()
            return values
        """),
    S("capsys_disabled_then_read", """
        def test_progress_lines(capsys):
            count_down(3)
            out = capsys.readouterr().out
            assert out.splitlines() == ["3", "2", "1", "liftoff"]
        """, """
        def count_down(n):
            for i in range(n, 0, -1):
                print(i)
            print("liftoff")
        """, """
        def count_down(n):
            for i in range(n, 0, -1):
                print(i, end=" ")
            print("liftoff")
        """),
]
