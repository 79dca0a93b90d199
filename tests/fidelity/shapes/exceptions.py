"""Exceptions the candidate raises, and warnings it gives, as tests check them."""

from functools import partial

from tests.fidelity.shapes import shape

S = partial(shape, "exceptions")

SHAPES = [
    S("raises_match", """
        import pytest

        def test_negative_sqrt():
            with pytest.raises(ValueError, match="negative"):
                safe_sqrt(-1)

        def test_positive():
            assert safe_sqrt(9) == 3
        """, """
        import math

        def safe_sqrt(x):
            if x < 0:
                raise ValueError(f"cannot take the root of a negative number: {x}")
            return math.sqrt(x)
        """, """
        import math

        def safe_sqrt(x):
            return math.sqrt(x)
        """),
    S("custom_exception_attrs", """
        import pytest

        def test_parse_error_line():
            with pytest.raises(ParseError) as e:
                parse_config("a=1\\nbroken\\nc=3")
            assert e.value.line == 2
            assert "broken" in str(e.value)

        def test_parses():
            assert parse_config("a=1\\nb=2") == {"a": "1", "b": "2"}
        """, """
        class ParseError(Exception):
            def __init__(self, line, text):
                super().__init__(f"line {line}: cannot parse {text!r}")
                self.line = line

        def parse_config(text):
            result = {}
            for number, row in enumerate(text.splitlines(), 1):
                if "=" not in row:
                    raise ParseError(number, row)
                key, value = row.split("=", 1)
                result[key] = value
            return result
        """, """
        class ParseError(Exception):
            def __init__(self, line, text):
                super().__init__(f"line {line}: cannot parse {text!r}")
                self.line = line

        def parse_config(text):
            result = {}
            for number, row in enumerate(text.splitlines()):
                if "=" not in row:
                    raise ParseError(number, row)
                key, value = row.split("=", 1)
                result[key] = value
            return result
        """),
    S("exception_args", """
        import pytest

        def test_args():
            with pytest.raises(KeyError) as e:
                lookup({}, "missing")
            assert e.value.args == ("missing",)
        """, """
        def lookup(table, key):
            if key not in table:
                raise KeyError(key)
            return table[key]
        """, """
        def lookup(table, key):
            if key not in table:
                raise KeyError(f"no key {key}")
            return table[key]
        """),
    S("exception_chaining", """
        import pytest

        def test_chained_cause():
            with pytest.raises(ConfigError) as e:
                load_port("eighty")
            assert isinstance(e.value.__cause__, ValueError)

        def test_ok():
            assert load_port("80") == 80
        """, """
        class ConfigError(Exception):
            pass

        def load_port(text):
            try:
                return int(text)
            except ValueError as error:
                raise ConfigError(f"bad port {text!r}") from error
        """, """
        class ConfigError(Exception):
            pass

        def load_port(text):
            if not text.isdigit():
                raise ConfigError(f"bad port {text!r}")
            return int(text)
        """),
    S("raises_builtin_types", """
        import pytest

        @pytest.mark.parametrize("bad", [None, 3.5, [1]])
        def test_type_error(bad):
            with pytest.raises(TypeError):
                repeat_word(bad, 2)

        def test_repeat():
            assert repeat_word("ab", 3) == "ababab"
        """, """
        def repeat_word(word, n):
            if not isinstance(word, str):
                raise TypeError("word must be a str")
            return word * n
        """, """
        def repeat_word(word, n):
            return word * n
        """),
    S("exception_hierarchy", """
        import pytest

        def test_catch_by_base():
            with pytest.raises(AppError):
                withdraw(10, 20)

        def test_specific_type():
            with pytest.raises(InsufficientFunds) as e:
                withdraw(5, 6)
            assert e.value.shortfall == 1
            assert isinstance(e.value, AppError)
        """, """
        class AppError(Exception):
            pass

        class InsufficientFunds(AppError):
            def __init__(self, shortfall):
                super().__init__(f"short by {shortfall}")
                self.shortfall = shortfall

        def withdraw(balance, amount):
            if amount > balance:
                raise InsufficientFunds(amount - balance)
            return balance - amount
        """, """
        class AppError(Exception):
            pass

        class InsufficientFunds(Exception):
            def __init__(self, shortfall):
                super().__init__(f"short by {shortfall}")
                self.shortfall = shortfall

        def withdraw(balance, amount):
            if amount > balance:
                raise InsufficientFunds(amount - balance)
            return balance - amount
        """),
    S("warns_deprecated", """
        import pytest

        def test_old_name_warns():
            with pytest.warns(DeprecationWarning, match="use area"):
                assert old_area(2, 3) == 6

        def test_new_name_quiet():
            assert area(2, 3) == 6
        """, """
        import warnings

        def area(w, h):
            return w * h

        def old_area(w, h):
            warnings.warn("old_area is deprecated, use area", DeprecationWarning, stacklevel=2)
            return area(w, h)
        """, """
        import warnings

        def area(w, h):
            return w * h

        def old_area(w, h):
            warnings.warn("old_area is deprecated, use area", PendingDeprecationWarning, stacklevel=2)
            return area(w, h)
        """),
    S("raises_excinfo_type", """
        import pytest

        def test_zero_division_wrapped():
            with pytest.raises(ZeroDivisionError) as e:
                ratio(1, 0)
            assert e.type is ZeroDivisionError

        def test_ratio():
            assert ratio(1, 4) == 0.25
        """, """
        def ratio(a, b):
            return a / b
        """, """
        def ratio(a, b):
            return a / b if b else 0.0
        """),
    S("exception_str_message", """
        def test_message_text():
            try:
                validate_age(-3)
            except ValueError as e:
                assert str(e) == "age must be between 0 and 150, got -3"
            else:
                assert False, "no error"
        """, """
        def validate_age(age):
            if not 0 <= age <= 150:
                raise ValueError(f"age must be between 0 and 150, got {age}")
            return age
        """, """
        def validate_age(age):
            if not 0 <= age <= 150:
                raise ValueError(f"age must be between 0 and 150, got {abs(age)}")
            return age
        """),
    S("exception_group_like_list", """
        import pytest

        def test_collects_all_errors():
            with pytest.raises(ValidationError) as e:
                validate({"name": "", "age": -1})
            assert sorted(e.value.errors) == ["age", "name"]
        """, """
        class ValidationError(Exception):
            def __init__(self, errors):
                super().__init__(", ".join(errors))
                self.errors = errors

        def validate(record):
            errors = []
            if not record.get("name"):
                errors.append("name")
            if record.get("age", 0) < 0:
                errors.append("age")
            if errors:
                raise ValidationError(errors)
        """, """
        class ValidationError(Exception):
            def __init__(self, errors):
                super().__init__(", ".join(errors))
                self.errors = errors

        def validate(record):
            if not record.get("name"):
                raise ValidationError(["name"])
            if record.get("age", 0) < 0:
                raise ValidationError(["age"])
        """),
    S("stop_iteration_from_next", """
        import pytest

        def test_exhausted():
            it = take_two([1])
            assert next(it) == 1
            with pytest.raises(StopIteration):
                next(it)
        """, """
        def take_two(items):
            return iter(items[:2])
        """, """
        def take_two(items):
            return iter((items + [None])[:2])
        """),
    S("raises_not_implemented", """
        import pytest

        def test_base_abstract():
            with pytest.raises(NotImplementedError):
                Animal().speak()

        def test_dog():
            assert Dog().speak() == "woof"
        """, """
        class Animal:
            def speak(self):
                raise NotImplementedError

        class Dog(Animal):
            def speak(self):
                return "woof"
        """, """
        class Animal:
            def speak(self):
                return ""

        class Dog(Animal):
            def speak(self):
                return "woof"
        """),
    S("raises_match_regex_escape", """
        import re
        import pytest

        def test_match_literal():
            with pytest.raises(IndexError, match=re.escape("index 5 out of range [0, 3)")):
                get_at([1, 2, 3], 5)
        """, """
        def get_at(items, i):
            if not 0 <= i < len(items):
                raise IndexError(f"index {i} out of range [0, {len(items)})")
            return items[i]
        """, """
        def get_at(items, i):
            if not 0 <= i < len(items):
                raise IndexError(f"index {i} out of range [0, {len(items) - 1}]")
            return items[i]
        """),
    S("warns_user_warning_record", """
        import pytest

        def test_warns_and_clamps():
            with pytest.warns(UserWarning) as record:
                assert clamp_percent(120) == 100
            assert "clamped" in str(record[0].message)
        """, """
        import warnings

        def clamp_percent(value):
            if value > 100:
                warnings.warn(f"{value} clamped to 100")
                return 100
            return value
        """, """
        import warnings

        def clamp_percent(value):
            if value > 100:
                warnings.warn(f"{value} too large")
                return 100
            return value
        """),
    S("assertion_error_raised", """
        import pytest

        def test_invariant_checked():
            with pytest.raises(AssertionError):
                checked_mean([])

        def test_mean():
            assert checked_mean([2, 4]) == 3
        """, """
        def checked_mean(values):
            assert values, "values must not be empty"
            return sum(values) / len(values)
        """, """
        def checked_mean(values):
            return sum(values) / max(len(values), 1)
        """),
    S("exception_context_implicit", """
        import pytest

        def test_context_kept():
            with pytest.raises(RuntimeError) as e:
                read_setting({}, "x")
            assert isinstance(e.value.__context__, KeyError)
        """, """
        def read_setting(settings, name):
            try:
                return settings[name]
            except KeyError:
                raise RuntimeError(f"setting {name} missing")
        """, """
        def read_setting(settings, name):
            if name not in settings:
                raise RuntimeError(f"setting {name} missing")
            return settings[name]
        """),
    S("os_error_subclass", """
        import pytest

        def test_missing_file(tmp_path):
            with pytest.raises(FileNotFoundError):
                read_first_line(tmp_path / "nope.txt")

        def test_errno(tmp_path):
            with pytest.raises(OSError) as e:
                read_first_line(tmp_path / "nope.txt")
            assert e.value.errno == 2
        """, """
        def read_first_line(path):
            with open(path) as handle:
                return handle.readline()
        """, """
        def read_first_line(path):
            try:
                with open(path) as handle:
                    return handle.readline()
            except OSError:
                return ""
        """),
    S("raises_as_decorator_style", """
        import pytest

        def test_nested_raises():
            with pytest.raises(ValueError) as outer:
                parse_rgb("1,2")
            assert "3 values" in outer.value.args[0]

        def test_parse():
            assert parse_rgb("1,2,3") == (1, 2, 3)
        """, """
        def parse_rgb(text):
            parts = text.split(",")
            if len(parts) != 3:
                raise ValueError(f"expected 3 values, got {len(parts)}")
            return tuple(int(p) for p in parts)
        """, """
        def parse_rgb(text):
            a, b, c = (text.split(",") + ["0"])[:3]
            return int(a), int(b), int(c)
        """),
    S("exception_notes", """
        import pytest

        def test_notes_added():
            with pytest.raises(ValueError) as e:
                parse_rows(["1", "x"])
            assert e.value.__notes__ == ["row 2"]
        """, """
        def parse_rows(rows):
            out = []
            for i, row in enumerate(rows, 1):
                try:
                    out.append(int(row))
                except ValueError as error:
                    error.add_note(f"row {i}")
                    raise
            return out
        """, """
        def parse_rows(rows):
            out = []
            for i, row in enumerate(rows):
                try:
                    out.append(int(row))
                except ValueError as error:
                    error.add_note(f"row {i}")
                    raise
            return out
        """),
    S("no_exception_expected", """
        def test_idempotent_close():
            r = Resource()
            r.close()
            r.close()
            assert r.closed
        """, """
        class Resource:
            def __init__(self):
                self.closed = False

            def close(self):
                self.closed = True
        """, """
        class Resource:
            def __init__(self):
                self.closed = False

            def close(self):
                if self.closed:
                    raise RuntimeError("already closed")
                self.closed = True
        """),
]
