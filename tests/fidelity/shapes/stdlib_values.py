"""Standard-library value types returned by the candidate and compared by the tests."""

from functools import partial

from tests.fidelity.shapes import shape

S = partial(shape, "stdlib_values")

SHAPES = [
    S("leap_day_date", """
        import datetime

        def test_next_leap_day():
            assert next_leap_day(datetime.date(2023, 5, 1)) == datetime.date(2024, 2, 29)

        def test_on_leap_day():
            assert next_leap_day(datetime.date(2024, 2, 29)) == datetime.date(2024, 2, 29)

        def test_after_leap_day():
            assert next_leap_day(datetime.date(2024, 3, 1)) == datetime.date(2028, 2, 29)
        """, """
        import calendar
        import datetime

        def next_leap_day(start):
            year = start.year
            while True:
                if calendar.isleap(year):
                    day = datetime.date(year, 2, 29)
                    if day >= start:
                        return day
                year += 1
        """, """
        import datetime

        def next_leap_day(start):
            year = start.year
            while year % 4:
                year += 1
            return datetime.date(year, 2, 29)
        """),
    S("add_business_days", """
        from datetime import date

        def test_skips_weekend():
            assert add_business_days(date(2024, 3, 8), 1) == date(2024, 3, 11)

        def test_weekday_type():
            result = add_business_days(date(2024, 3, 4), 3)
            assert isinstance(result, date)
            assert result.weekday() == 3
        """, """
        from datetime import timedelta

        def add_business_days(day, n):
            while n:
                day += timedelta(days=1)
                if day.weekday() < 5:
                    n -= 1
            return day
        """, """
        from datetime import timedelta

        def add_business_days(day, n):
            return day + timedelta(days=n)
        """),
    S("duration_timedelta", """
        from datetime import timedelta

        def test_parse_duration():
            assert parse_duration("1h30m") == timedelta(hours=1, minutes=30)

        def test_total_seconds():
            assert parse_duration("2m5s").total_seconds() == 125
        """, """
        import re
        from datetime import timedelta

        def parse_duration(text):
            units = {"h": "hours", "m": "minutes", "s": "seconds"}
            return timedelta(**{units[u]: int(n) for n, u in re.findall(r"(\\d+)([hms])", text)})
        """, """
        import re
        from datetime import timedelta

        def parse_duration(text):
            units = {"h": "hours", "m": "minutes", "s": "seconds"}
            return timedelta(**{units[u]: int(n) for n, u in re.findall(r"(\\d)([hms])", text)})
        """),
    S("aware_datetime_utc", """
        from datetime import datetime, timezone, timedelta

        def test_to_utc():
            local = datetime(2024, 1, 1, 12, 0, tzinfo=timezone(timedelta(hours=2)))
            result = to_utc(local)
            assert result == datetime(2024, 1, 1, 10, 0, tzinfo=timezone.utc)
            assert result.tzinfo == timezone.utc
            assert result.hour == 10
        """, """
        from datetime import timezone

        def to_utc(moment):
            return moment.astimezone(timezone.utc)
        """, """
        from datetime import timezone

        def to_utc(moment):
            return moment.replace(tzinfo=timezone.utc)
        """),
    S("parse_time_of_day", """
        import datetime

        def test_parse():
            assert parse_clock("07:45") == datetime.time(7, 45)

        def test_pm():
            assert parse_clock("7:45 PM") == datetime.time(19, 45)
        """, """
        import datetime

        def parse_clock(text):
            text = text.strip()
            pm = text.upper().endswith("PM")
            hours, minutes = text.split()[0].split(":")
            hour = int(hours) % 12 + 12 if pm else int(hours)
            return datetime.time(hour, int(minutes))
        """, """
        import datetime

        def parse_clock(text):
            hours, minutes = text.split()[0].split(":")
            return datetime.time(int(hours), int(minutes))
        """),
    S("decimal_money", """
        from decimal import Decimal

        def test_total():
            assert total_price(["0.10", "0.20"]) == Decimal("0.30")

        def test_rounding_half_up():
            assert round_cents(Decimal("2.665")) == Decimal("2.67")
        """, """
        from decimal import ROUND_HALF_UP, Decimal

        def total_price(prices):
            return sum((Decimal(p) for p in prices), Decimal(0))

        def round_cents(amount):
            return amount.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        """, """
        from decimal import Decimal

        def total_price(prices):
            return sum((Decimal(p) for p in prices), Decimal(0))

        def round_cents(amount):
            return amount.quantize(Decimal("0.01"))
        """),
    S("fraction_mean", """
        from fractions import Fraction

        def test_exact_mean():
            assert exact_mean([1, 2, 2]) == Fraction(5, 3)

        def test_type():
            assert isinstance(exact_mean([1, 2]), Fraction)
        """, """
        from fractions import Fraction

        def exact_mean(values):
            return Fraction(sum(values), len(values))
        """, """
        def exact_mean(values):
            return sum(values) / len(values)
        """),
    S("path_suffix", """
        from pathlib import Path

        def test_with_backup_suffix():
            assert backup_path(Path("/data/report.txt")) == Path("/data/report.txt.bak")

        def test_returns_path():
            result = backup_path(Path("notes.md"))
            assert result.suffix == ".bak"
            assert result.parent == Path(".")
        """, """
        from pathlib import Path

        def backup_path(path):
            return path.with_name(path.name + ".bak")
        """, """
        from pathlib import Path

        def backup_path(path):
            return path.with_suffix(".bak")
        """),
    S("namedtuple_point", """
        def test_midpoint_fields():
            p = midpoint(Point(0, 0), Point(4, 2))
            assert p.x == 2 and p.y == 1

        def test_is_tuple():
            assert midpoint(Point(1, 1), Point(3, 3)) == (2, 2)
        """, """
        from collections import namedtuple

        Point = namedtuple("Point", "x y")

        def midpoint(a, b):
            return Point((a.x + b.x) / 2, (a.y + b.y) / 2)
        """, """
        from collections import namedtuple

        Point = namedtuple("Point", "x y")

        def midpoint(a, b):
            return Point((a.x + b.y) / 2, (a.y + b.x) / 2)
        """),
    S("counter_words", """
        from collections import Counter

        def test_counts():
            counts = word_counts("the cat and the hat")
            assert counts["the"] == 2
            assert counts["dog"] == 0

        def test_most_common():
            assert word_counts("a b a c a b").most_common(1) == [("a", 3)]
        """, """
        from collections import Counter

        def word_counts(text):
            return Counter(text.split())
        """, """
        from collections import Counter

        def word_counts(text):
            return Counter(set(text.split()))
        """),
    S("defaultdict_groups", """
        def test_group_by_length():
            groups = group_by_length(["a", "bb", "cc", "d"])
            assert groups[1] == ["a", "d"]
            assert groups[2] == ["bb", "cc"]

        def test_missing_key_is_empty():
            assert group_by_length(["x"])[5] == []
        """, """
        from collections import defaultdict

        def group_by_length(words):
            groups = defaultdict(list)
            for word in words:
                groups[len(word)].append(word)
            return groups
        """, """
        def group_by_length(words):
            groups = {}
            for word in words:
                groups.setdefault(len(word), []).append(word)
            return groups
        """),
    S("deque_window", """
        from collections import deque

        def test_last_n():
            window = last_n([1, 2, 3, 4, 5], 3)
            assert window == deque([3, 4, 5])
            assert window.maxlen == 3

        def test_appendleft():
            window = last_n([1, 2], 2)
            window.appendleft(0)
            assert list(window) == [0, 1]
        """, """
        from collections import deque

        def last_n(items, n):
            return deque(items, maxlen=n)
        """, """
        from collections import deque

        def last_n(items, n):
            return deque(items[-n:])
        """),
    S("ordereddict_lru_order", """
        from collections import OrderedDict

        def test_touch_moves_to_end():
            d = OrderedDict(a=1, b=2, c=3)
            touch(d, "a")
            assert list(d) == ["b", "c", "a"]

        def test_returns_ordereddict():
            assert isinstance(from_pairs([("x", 1)]), OrderedDict)
        """, """
        from collections import OrderedDict

        def touch(d, key):
            d.move_to_end(key)

        def from_pairs(pairs):
            return OrderedDict(pairs)
        """, """
        from collections import OrderedDict

        def touch(d, key):
            d.move_to_end(key, last=False)

        def from_pairs(pairs):
            return OrderedDict(pairs)
        """),
    S("enum_status", """
        def test_parse_status():
            assert parse_status("active") is Status.ACTIVE

        def test_enum_value():
            assert parse_status("closed").value == 2
            assert Status(1) == Status.ACTIVE
        """, """
        from enum import Enum

        class Status(Enum):
            ACTIVE = 1
            CLOSED = 2

        def parse_status(text):
            return Status[text.upper()]
        """, """
        from enum import Enum

        class Status(Enum):
            ACTIVE = 1
            CLOSED = 2

        def parse_status(text):
            return Status.ACTIVE if text else Status.CLOSED
        """),
    S("set_operations", """
        def test_common_tags():
            assert common_tags([{"a", "b"}, {"b", "c"}, {"b"}]) == {"b"}

        def test_frozen():
            result = unique_pairs([(1, 2), (2, 1)])
            assert result == frozenset({frozenset({1, 2})})
            assert isinstance(result, frozenset)
        """, """
        def common_tags(sets):
            return set.intersection(*map(set, sets))

        def unique_pairs(pairs):
            return frozenset(frozenset(p) for p in pairs)
        """, """
        def common_tags(sets):
            return set.union(*map(set, sets))

        def unique_pairs(pairs):
            return frozenset(frozenset(p) for p in pairs)
        """),
    S("bytes_checksum", """
        def test_xor_checksum():
            assert xor_bytes(b"\\x01\\x02", b"\\x03\\x03") == b"\\x02\\x01"

        def test_hex():
            assert xor_bytes(b"ab", b"ab").hex() == "0000"
        """, """
        def xor_bytes(a, b):
            return bytes(x ^ y for x, y in zip(a, b))
        """, """
        def xor_bytes(a, b):
            return bytes(x | y for x, y in zip(a, b))
        """),
    S("complex_roots", """
        import cmath

        def test_negative_discriminant():
            roots = quadratic_roots(1, 0, 1)
            assert set(roots) == {1j, -1j}

        def test_real_roots():
            assert sorted(quadratic_roots(1, -3, 2), key=lambda z: z.real) == [1, 2]
        """, """
        import cmath

        def quadratic_roots(a, b, c):
            d = cmath.sqrt(b * b - 4 * a * c)
            return ((-b + d) / (2 * a), (-b - d) / (2 * a))
        """, """
        import math

        def quadratic_roots(a, b, c):
            d = math.sqrt(b * b - 4 * a * c)
            return ((-b + d) / (2 * a), (-b - d) / (2 * a))
        """),
    S("nan_and_inf", """
        import math

        def test_safe_div_by_zero():
            assert safe_div(1, 0) == math.inf
            assert safe_div(-1, 0) == -math.inf

        def test_zero_by_zero():
            assert math.isnan(safe_div(0, 0))
        """, """
        import math

        def safe_div(a, b):
            if b == 0:
                return math.nan if a == 0 else math.copysign(math.inf, a)
            return a / b
        """, """
        import math

        def safe_div(a, b):
            if b == 0:
                return math.inf
            return a / b
        """),
    S("big_int_factorial", """
        def test_big():
            assert factorial(30) == 265252859812191058636308480000000

        def test_digits():
            assert len(str(factorial(100))) == 158
        """, """
        def factorial(n):
            result = 1
            for i in range(2, n + 1):
                result *= i
            return result
        """, """
        def factorial(n):
            result = 1.0
            for i in range(2, n + 1):
                result *= i
            return int(result)
        """),
    S("struct_time_iso", """
        from datetime import datetime

        def test_parse_iso():
            assert parse_stamp("2024-06-01T08:30:00+00:00").isoformat() == "2024-06-01T08:30:00+00:00"

        def test_sorting_stamps():
            stamps = ["2024-06-01T08:30:00+00:00", "2024-06-01T09:00:00+02:00"]
            assert [s.hour for s in sorted(map(parse_stamp, stamps))] == [9, 8]
        """, """
        from datetime import datetime

        def parse_stamp(text):
            return datetime.fromisoformat(text)
        """, """
        from datetime import datetime

        def parse_stamp(text):
            return datetime.fromisoformat(text[:19])
        """),
]
