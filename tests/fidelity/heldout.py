"""Held-out fidelity shapes: written after codeheal was tuned against tests/fidelity/shapes/, and
not looked at while tuning. Same format (tests/fidelity/shapes/__init__.py: Shape), families
named `heldout-<topic>`. Each shape's honest solution passes plain pytest, its wrong twin (a
plausible slip) fails it. `table` is corpus.table's per-family table for families outside the
corpus's FAMILIES (which corpus.family_counts orders by)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from tests.fidelity.corpus import Comparison, FamilyCount, _cell, _escape
from tests.fidelity.shapes import shape

STD = partial(shape, "heldout-stdlib")
OBJ = partial(shape, "heldout-objects")
EXC = partial(shape, "heldout-exceptions")
CB = partial(shape, "heldout-callbacks")
IT = partial(shape, "heldout-iterators")
PT = partial(shape, "heldout-pytest")
UT = partial(shape, "heldout-unittest")
ST = partial(shape, "heldout-state")
ALG = partial(shape, "heldout-algorithms")

SHAPES = [
    # ---------------------------------------------------------------- stdlib value types
    STD("ipv4_usable_hosts", """
        from ipaddress import ip_address, IPv4Address

        def test_slash_30():
            assert usable_hosts("192.168.1.0/30") == [ip_address("192.168.1.1"), ip_address("192.168.1.2")]

        def test_types():
            assert all(isinstance(h, IPv4Address) for h in usable_hosts("10.0.0.0/29"))
            assert len(usable_hosts("10.0.0.0/29")) == 6
        """, """
        import ipaddress

        def usable_hosts(cidr):
            return list(ipaddress.ip_network(cidr).hosts())
        """, """
        import ipaddress

        def usable_hosts(cidr):
            return list(ipaddress.ip_network(cidr))
        """),
    STD("uuid5_stable_ids", """
        import uuid

        def test_is_uuid_v5():
            u = user_id("alice@example.com")
            assert isinstance(u, uuid.UUID)
            assert u.version == 5

        def test_stable():
            assert user_id("bob") == user_id("bob")
            assert user_id("bob") != user_id("carol")
        """, """
        import uuid

        def user_id(name):
            return uuid.uuid5(uuid.NAMESPACE_DNS, name)
        """, """
        import uuid

        def user_id(name):
            return uuid.uuid4()
        """),
    STD("regex_match_groups", """
        import re

        def test_groups():
            m = parse_version("1.12.3")
            assert isinstance(m, re.Match)
            assert m["major"] == "1"
            assert m.groupdict() == {"major": "1", "minor": "12", "patch": "3"}
            assert m.span() == (0, 6)

        def test_incomplete_rejected():
            assert parse_version("1.2") is None
        """, """
        import re

        _VERSION = re.compile(r"(?P<major>\\d+)\\.(?P<minor>\\d+)\\.(?P<patch>\\d+)")

        def parse_version(text):
            return _VERSION.fullmatch(text)
        """, """
        import re

        _VERSION = re.compile(r"(?P<major>\\d+)\\.(?P<minor>\\d+)(?:\\.(?P<patch>\\d+))?")

        def parse_version(text):
            return _VERSION.fullmatch(text)
        """),
    STD("array_typecode", """
        from array import array

        def test_values():
            assert to_int_array([1, 2, 3]) == array("i", [1, 2, 3])

        def test_typecode():
            arr = to_int_array([7])
            assert arr.typecode == "i"
            assert arr.tobytes() == array("i", [7]).tobytes()
        """, """
        from array import array

        def to_int_array(values):
            return array("i", values)
        """, """
        from array import array

        def to_int_array(values):
            return array("d", values)
        """),
    STD("bytearray_xor_in_place", """
        def test_mutates_buffer():
            buf = bytearray(b"abc")
            assert xor_in_place(buf, 0x20) is None
            assert buf == bytearray(b"ABC")

        def test_twice_restores():
            buf = bytearray(b"Hello")
            xor_in_place(buf, 7)
            xor_in_place(buf, 7)
            assert buf == b"Hello"
        """, """
        def xor_in_place(buf, key):
            for i, b in enumerate(buf):
                buf[i] = b ^ key
        """, """
        def xor_in_place(buf, key):
            buf = bytearray(b ^ key for b in buf)
        """),
    STD("memoryview_window_writes_through", """
        def test_window_reads():
            data = bytearray(b"abcdef")
            mv = window(data, 2, 5)
            assert isinstance(mv, memoryview)
            assert mv.tobytes() == b"cde"
            assert mv.nbytes == 3

        def test_window_writes_through():
            data = bytearray(b"abcdef")
            mv = window(data, 2, 5)
            mv[0] = ord("X")
            assert data == bytearray(b"abXdef")
        """, """
        def window(data, start, stop):
            return memoryview(data)[start:stop]
        """, """
        def window(data, start, stop):
            return memoryview(bytes(data[start:stop]))
        """),
    STD("timezone_offset_conversion", """
        from datetime import datetime, timedelta, timezone

        def test_same_instant():
            utc = datetime(2024, 1, 1, 12, 0, tzinfo=timezone.utc)
            local = to_offset(utc, 5, 30)
            assert local == utc
            assert local.utcoffset() == timedelta(hours=5, minutes=30)
            assert (local.hour, local.minute) == (17, 30)

        def test_negative_offset():
            utc = datetime(2024, 1, 1, 2, 0, tzinfo=timezone.utc)
            assert to_offset(utc, -3).day == 31
        """, """
        from datetime import timedelta, timezone

        def to_offset(dt, hours, minutes=0):
            return dt.astimezone(timezone(timedelta(hours=hours, minutes=minutes)))
        """, """
        from datetime import timedelta, timezone

        def to_offset(dt, hours, minutes=0):
            return dt.replace(tzinfo=timezone(timedelta(hours=hours, minutes=minutes)))
        """),
    STD("calendar_month_grid", """
        def test_february_2024():
            grid = month_grid(2024, 2)
            assert grid[0] == [0, 0, 0, 1, 2, 3, 4]
            assert grid[-1][:4] == [26, 27, 28, 29]

        def test_weeks():
            assert len(month_grid(2021, 2)) == 4
        """, """
        import calendar

        def month_grid(year, month):
            return calendar.monthcalendar(year, month)
        """, """
        import calendar

        def month_grid(year, month):
            return calendar.Calendar(firstweekday=6).monthdayscalendar(year, month)
        """),
    STD("heapq_push_in_place", """
        import heapq

        def test_pops_by_priority():
            tasks = []
            add_task(tasks, 3, "write")
            add_task(tasks, 1, "plan")
            add_task(tasks, 2, "code")
            assert [heapq.heappop(tasks)[1] for _ in range(3)] == ["plan", "code", "write"]

        def test_smallest_first():
            tasks = []
            for p in [5, 4, 3]:
                add_task(tasks, p, str(p))
            assert tasks[0] == (3, "3")
        """, """
        import heapq

        def add_task(heap, priority, name):
            heapq.heappush(heap, (priority, name))
        """, """
        def add_task(heap, priority, name):
            heap.append((priority, name))
        """),
    STD("bisect_insort_in_place", """
        def test_keeps_sorted():
            scores = [10, 20, 30]
            insert_score(scores, 25)
            insert_score(scores, 5)
            assert scores == [5, 10, 20, 25, 30]

        def test_returns_position():
            scores = [1, 3]
            assert insert_score(scores, 2) == 1
        """, """
        import bisect

        def insert_score(scores, score):
            i = bisect.bisect_right(scores, score)
            scores.insert(i, score)
            return i
        """, """
        import bisect

        def insert_score(scores, score):
            i = bisect.bisect_right(scores, score)
            scores = scores[:i] + [score] + scores[i:]
            return i
        """),
    STD("statistics_summary", """
        import pytest

        def test_summary():
            s = summary([2, 4, 4, 4, 5, 5, 7, 9])
            assert s["median"] == 4.5
            assert s["mode"] == 4
            assert s["pstdev"] == pytest.approx(2.0)
        """, """
        import statistics

        def summary(values):
            return {"median": statistics.median(values), "mode": statistics.mode(values),
                    "pstdev": statistics.pstdev(values)}
        """, """
        import statistics

        def summary(values):
            return {"median": statistics.median(values), "mode": statistics.mode(values),
                    "pstdev": statistics.stdev(values)}
        """),
    STD("simple_namespace_config", """
        from types import SimpleNamespace

        def test_nested_attributes():
            cfg = load_config({"db": {"host": "localhost", "port": 5432}, "debug": True})
            assert cfg.db.host == "localhost"
            assert cfg.debug is True

        def test_equality():
            assert load_config({"a": {"b": 1}}) == SimpleNamespace(a=SimpleNamespace(b=1))
        """, """
        from types import SimpleNamespace

        def load_config(data):
            return SimpleNamespace(**{k: load_config(v) if isinstance(v, dict) else v for k, v in data.items()})
        """, """
        from types import SimpleNamespace

        def load_config(data):
            return SimpleNamespace(**data)
        """),
    STD("dataclass_replace_asdict", """
        from dataclasses import asdict, astuple

        def test_discount_copy():
            item = Item("pen", 200)
            cheaper = discounted(item, 25)
            assert asdict(cheaper) == {"name": "pen", "cents": 150}
            assert astuple(cheaper) == ("pen", 150)

        def test_original_untouched():
            item = Item("ink", 100)
            discounted(item, 50)
            assert item.cents == 100
        """, """
        from dataclasses import dataclass, replace

        @dataclass
        class Item:
            name: str
            cents: int

        def discounted(item, percent):
            return replace(item, cents=item.cents * (100 - percent) // 100)
        """, """
        from dataclasses import dataclass

        @dataclass
        class Item:
            name: str
            cents: int

        def discounted(item, percent):
            item.cents = item.cents * (100 - percent) // 100
            return item
        """),
    STD("enum_flag_combination", """
        def test_parse():
            p = parse_perms("rw")
            assert p == Perm.R | Perm.W
            assert Perm.R in p
            assert Perm.X not in p

        def test_empty():
            assert not parse_perms("")
            assert parse_perms("") == Perm(0)

        def test_all():
            assert parse_perms("rwx") == Perm.R | Perm.W | Perm.X
        """, """
        import enum

        class Perm(enum.Flag):
            R = 4
            W = 2
            X = 1

        def parse_perms(text):
            result = Perm(0)
            for ch in text:
                result |= Perm[ch.upper()]
            return result
        """, """
        import enum

        class Perm(enum.Flag):
            R = 4
            W = 2
            X = 1

        def parse_perms(text):
            result = Perm(0)
            for ch in text:
                result = Perm[ch.upper()]
            return result
        """),
    STD("typing_namedtuple_span", """
        def test_merge():
            assert merge(Span(1, 5), Span(3, 9)) == (1, 9)

        def test_fields():
            s = merge(Span(2, 4), Span(0, 3))
            assert s._asdict() == {"start": 0, "end": 4}
            assert s.length() == 4
            assert s._replace(end=10) == Span(0, 10)
        """, """
        from typing import NamedTuple

        class Span(NamedTuple):
            start: int
            end: int

            def length(self):
                return self.end - self.start

        def merge(a, b):
            return Span(min(a.start, b.start), max(a.end, b.end))
        """, """
        from typing import NamedTuple

        class Span(NamedTuple):
            start: int
            end: int

            def length(self):
                return self.end - self.start

        def merge(a, b):
            return Span(min(a.start, b.start), b.end)
        """),
    STD("chainmap_overrides", """
        from collections import ChainMap

        def test_override_wins():
            s = settings({"color": "red", "size": 1}, {"color": "blue"})
            assert isinstance(s, ChainMap)
            assert s["color"] == "blue"
            assert s["size"] == 1

        def test_writes_go_to_overrides():
            defaults, overrides = {"a": 1}, {}
            s = settings(defaults, overrides)
            s["a"] = 2
            assert overrides == {"a": 2}
            assert defaults == {"a": 1}
        """, """
        from collections import ChainMap

        def settings(defaults, overrides):
            return ChainMap(overrides, defaults)
        """, """
        from collections import ChainMap

        def settings(defaults, overrides):
            return ChainMap(defaults, overrides)
        """),
    # ---------------------------------------------------------------- the candidate's objects
    OBJ("slots_through_inheritance", """
        import pytest

        def test_no_instance_dict():
            c = Colored(1, 2, "red")
            assert not hasattr(c, "__dict__")
            assert (c.x, c.y, c.color) == (1, 2, "red")

        def test_cannot_add():
            with pytest.raises(AttributeError):
                Colored(0, 0, "blue").alpha = 0.5
        """, """
        class Point:
            __slots__ = ("x", "y")

            def __init__(self, x, y):
                self.x, self.y = x, y

        class Colored(Point):
            __slots__ = ("color",)

            def __init__(self, x, y, color):
                super().__init__(x, y)
                self.color = color
        """, """
        class Point:
            __slots__ = ("x", "y")

            def __init__(self, x, y):
                self.x, self.y = x, y

        class Colored(Point):
            def __init__(self, x, y, color):
                super().__init__(x, y)
                self.color = color
        """),
    OBJ("iter_and_reversed", """
        def test_forward():
            assert list(Playlist(["a", "b", "c"])) == ["a", "b", "c"]

        def test_backward():
            p = Playlist(["a", "b", "c"])
            assert list(reversed(p)) == ["c", "b", "a"]
            assert list(p) == ["a", "b", "c"]
        """, """
        class Playlist:
            def __init__(self, songs):
                self._songs = list(songs)

            def __iter__(self):
                return iter(self._songs)

            def __reversed__(self):
                return reversed(self._songs)
        """, """
        class Playlist:
            def __init__(self, songs):
                self._songs = list(songs)

            def __iter__(self):
                return iter(self._songs)

            def __reversed__(self):
                self._songs.reverse()
                return iter(self._songs)
        """),
    OBJ("format_spec_temperature", """
        def test_default_celsius():
            assert f"{Temperature(21.5)}" == "21.5°C"

        def test_fahrenheit():
            assert f"{Temperature(100):F}" == "212.0°F"
            assert format(Temperature(0), "K") == "273.1°K"
        """, """
        class Temperature:
            def __init__(self, celsius):
                self.celsius = celsius

            def __format__(self, spec):
                unit = spec or "C"
                value = {"C": self.celsius, "F": self.celsius * 9 / 5 + 32, "K": self.celsius + 273.15}[unit]
                return f"{value:.1f}°{unit}"
        """, """
        class Temperature:
            def __init__(self, celsius):
                self.celsius = celsius

            def __format__(self, spec):
                unit = spec or "C"
                value = {"C": self.celsius, "F": self.celsius * 9 / 5 + 32, "K": self.celsius - 273.15}[unit]
                return f"{value:.1f}°{unit}"
        """),
    OBJ("bool_of_inventory", """
        def test_empty_counts_falsy():
            assert not Inventory({"apple": 0, "pear": 0})
            assert not Inventory({})

        def test_stock_truthy():
            inv = Inventory({"apple": 0, "pear": 2})
            assert inv
            assert len(inv) == 2
        """, """
        class Inventory:
            def __init__(self, counts):
                self.counts = dict(counts)

            def __len__(self):
                return len(self.counts)

            def __bool__(self):
                return any(self.counts.values())
        """, """
        class Inventory:
            def __init__(self, counts):
                self.counts = dict(counts)

            def __len__(self):
                return len(self.counts)
        """),
    OBJ("getattr_delegation", """
        import pytest

        def test_delegates_and_logs():
            w = Logged([])
            w.append(1)
            w.extend([2, 3])
            assert w.inner == [1, 2, 3]
            assert w.log == ["append", "extend"]

        def test_missing_attribute():
            with pytest.raises(AttributeError):
                Logged([]).no_such_method
        """, """
        class Logged:
            def __init__(self, inner):
                self.inner = inner
                self.log = []

            def __getattr__(self, name):
                attr = getattr(self.inner, name)
                self.log.append(name)
                return attr
        """, """
        class Logged:
            def __init__(self, inner):
                self.inner = inner
                self.log = []

            def __getattr__(self, name):
                self.log.append(name)
                return getattr(self.inner, name, None)
        """),
    OBJ("super_chain_describe", """
        def test_square():
            assert Square(3).describe() == "shape; 4 sides; 3x3; square"

        def test_rectangle():
            assert Rectangle(2, 5).describe() == "shape; 4 sides; 2x5"
            assert Square(2).area() == 4
        """, """
        class Shape:
            def describe(self):
                return "shape"

        class Polygon(Shape):
            sides = 4

            def describe(self):
                return f"{super().describe()}; {self.sides} sides"

        class Rectangle(Polygon):
            def __init__(self, w, h):
                self.w, self.h = w, h

            def area(self):
                return self.w * self.h

            def describe(self):
                return f"{super().describe()}; {self.w}x{self.h}"

        class Square(Rectangle):
            def __init__(self, side):
                super().__init__(side, side)

            def describe(self):
                return f"{super().describe()}; square"
        """, """
        class Shape:
            def describe(self):
                return "shape"

        class Polygon(Shape):
            sides = 4

            def describe(self):
                return f"{super().describe()}; {self.sides} sides"

        class Rectangle(Polygon):
            def __init__(self, w, h):
                self.w, self.h = w, h

            def area(self):
                return self.w * self.h

            def describe(self):
                return f"{super().describe()}; {self.w}x{self.h}"

        class Square(Rectangle):
            def __init__(self, side):
                super().__init__(side, side)

            def describe(self):
                return f"{Polygon.describe(self)}; square"
        """),
    OBJ("abc_abstract_instantiation", """
        import pytest

        def test_base_is_abstract():
            with pytest.raises(TypeError):
                Storage()

        def test_incomplete_subclass():
            class Half(Storage):
                def save(self, key, value):
                    pass
            with pytest.raises(TypeError):
                Half()

        def test_memory_storage():
            s = MemoryStorage()
            s.save("k", 1)
            assert s.load("k") == 1
        """, """
        from abc import ABC, abstractmethod

        class Storage(ABC):
            @abstractmethod
            def save(self, key, value): ...

            @abstractmethod
            def load(self, key): ...

        class MemoryStorage(Storage):
            def __init__(self):
                self.data = {}

            def save(self, key, value):
                self.data[key] = value

            def load(self, key):
                return self.data[key]
        """, """
        class Storage:
            def save(self, key, value):
                raise NotImplementedError

            def load(self, key):
                raise NotImplementedError

        class MemoryStorage(Storage):
            def __init__(self):
                self.data = {}

            def save(self, key, value):
                self.data[key] = value

            def load(self, key):
                return self.data[key]
        """),
    OBJ("init_subclass_registry", """
        def test_subclasses_register_by_keyword():
            class CsvExporter(Exporter, fmt="csv"):
                pass

            class JsonExporter(Exporter, fmt="json"):
                pass

            assert Exporter.registry["csv"] is CsvExporter
            assert Exporter.registry["json"] is JsonExporter
            assert exporter_for("json") is JsonExporter
        """, """
        class Exporter:
            registry = {}

            def __init_subclass__(cls, fmt, **kwargs):
                super().__init_subclass__(**kwargs)
                cls.fmt = fmt
                Exporter.registry[fmt] = cls

        def exporter_for(fmt):
            return Exporter.registry[fmt]
        """, """
        class Exporter:
            registry = {}

            def __init_subclass__(cls, fmt, **kwargs):
                super().__init_subclass__(**kwargs)
                cls.fmt = fmt
                Exporter.registry[cls.__name__.lower()] = cls

        def exporter_for(fmt):
            return Exporter.registry.get(fmt)
        """),
    OBJ("cached_property_invalidation", """
        def test_computed_once():
            ds = Dataset([1, 2, 3])
            assert ds.total == 6
            assert ds.total == 6
            assert ds.computed == 1

        def test_delete_recomputes():
            ds = Dataset([1])
            assert ds.total == 1
            ds.values.append(4)
            del ds.total
            assert ds.total == 5
            assert ds.computed == 2
        """, """
        from functools import cached_property

        class Dataset:
            def __init__(self, values):
                self.values = values
                self.computed = 0

            @cached_property
            def total(self):
                self.computed += 1
                return sum(self.values)
        """, """
        class Dataset:
            def __init__(self, values):
                self.values = values
                self.computed = 0

            @property
            def total(self):
                self.computed += 1
                return sum(self.values)
        """),
    OBJ("class_getitem_typed_box", """
        import pytest

        def test_typed_box_accepts():
            IntBox = Box[int]
            assert IntBox(3).value == 3
            assert IntBox.item_type is int

        def test_typed_box_rejects():
            with pytest.raises(TypeError):
                Box[int]("three")
        """, """
        class Box:
            item_type = object

            def __init__(self, value):
                if not isinstance(value, self.item_type):
                    raise TypeError(f"expected {self.item_type.__name__}")
                self.value = value

            def __class_getitem__(cls, item):
                return type(f"Box[{item.__name__}]", (cls,), {"item_type": item})
        """, """
        class Box:
            item_type = object

            def __init__(self, value):
                if not isinstance(value, self.item_type):
                    raise TypeError(f"expected {self.item_type.__name__}")
                self.value = value

            def __class_getitem__(cls, item):
                return cls
        """),
    OBJ("index_dunder", """
        def test_usable_as_index():
            letters = ["a", "b", "c", "d"]
            assert letters[Nibble(2)] == "c"
            assert list(range(Nibble(3))) == [0, 1, 2]
            assert bin(Nibble(5)) == "0b101"

        def test_masks():
            assert int(Nibble(0x1F)) == 0xF
        """, """
        class Nibble:
            def __init__(self, value):
                self.value = value & 0xF

            def __index__(self):
                return self.value
        """, """
        class Nibble:
            def __init__(self, value):
                self.value = value & 0xF

            def __int__(self):
                return self.value
        """),
    OBJ("dict_missing_hook", """
        def test_missing_key_computed():
            d = Upper({"x": "kept"})
            assert d["x"] == "kept"
            assert d["abc"] == "ABC"
            assert "abc" not in d

        def test_get_unaffected():
            assert Upper().get("q") is None
        """, """
        class Upper(dict):
            def __missing__(self, key):
                return key.upper()
        """, """
        class Upper(dict):
            def __missing__(self, key):
                self[key] = key.upper()
                return self[key]
        """),
    OBJ("deepcopy_tree", """
        import copy

        def test_deepcopy_independent():
            root = Node("root", [Node("a"), Node("b")])
            clone = copy.deepcopy(root)
            clone.children[0].name = "changed"
            assert root.children[0].name == "a"
            assert clone == Node("root", [Node("changed"), Node("b")])

        def test_copy_shares_children():
            root = Node("r", [Node("x")])
            assert copy.copy(root).children is root.children
        """, """
        import copy

        class Node:
            def __init__(self, name, children=None):
                self.name = name
                self.children = children or []

            def __eq__(self, other):
                return isinstance(other, Node) and (self.name, self.children) == (other.name, other.children)

            def __deepcopy__(self, memo):
                return Node(self.name, [copy.deepcopy(c, memo) for c in self.children])
        """, """
        import copy

        class Node:
            def __init__(self, name, children=None):
                self.name = name
                self.children = children or []

            def __eq__(self, other):
                return isinstance(other, Node) and (self.name, self.children) == (other.name, other.children)

            def __deepcopy__(self, memo):
                return Node(self.name, list(self.children))
        """),
    # ---------------------------------------------------------------- exceptions
    EXC("exception_group_except_star", """
        import pytest

        def test_all_errors_reported():
            with pytest.raises(ExceptionGroup) as info:
                run_all([lambda: 1, lambda: int("x"), lambda: {}["k"]])
            assert len(info.value.exceptions) == 2

        def test_except_star_splits():
            value_errors, key_errors = [], []
            try:
                run_all([lambda: int("x"), lambda: {}["k"], lambda: int("y")])
            except* ValueError as group:
                value_errors.extend(group.exceptions)
            except* KeyError as group:
                key_errors.extend(group.exceptions)
            assert (len(value_errors), len(key_errors)) == (2, 1)

        def test_no_errors():
            assert run_all([lambda: 1, lambda: 2]) == [1, 2]
        """, """
        def run_all(tasks):
            results, errors = [], []
            for task in tasks:
                try:
                    results.append(task())
                except Exception as error:
                    errors.append(error)
            if errors:
                raise ExceptionGroup("tasks failed", errors)
            return results
        """, """
        def run_all(tasks):
            results, errors = [], []
            for task in tasks:
                try:
                    results.append(task())
                except Exception as error:
                    errors.append(error)
            if errors:
                raise errors[0]
            return results
        """),
    EXC("raise_from_none", """
        import pytest

        def test_clean_error():
            with pytest.raises(MissingSetting) as info:
                setting({}, "port")
            assert info.value.__cause__ is None
            assert info.value.__suppress_context__ is True
            assert "port" in str(info.value)

        def test_found():
            assert setting({"port": 80}, "port") == 80
        """, """
        class MissingSetting(Exception):
            pass

        def setting(config, name):
            try:
                return config[name]
            except KeyError:
                raise MissingSetting(f"no setting {name!r}") from None
        """, """
        class MissingSetting(Exception):
            pass

        def setting(config, name):
            try:
                return config[name]
            except KeyError:
                raise MissingSetting(f"no setting {name!r}")
        """),
    EXC("filterwarnings_error_mark", """
        import pytest

        @pytest.mark.filterwarnings("error")
        def test_no_warning_on_padded_input():
            assert parse_int(" 42 ") == 42

        def test_plain():
            assert parse_int("7") == 7
        """, """
        def parse_int(text):
            return int(text.strip())
        """, """
        import warnings

        def parse_int(text):
            if text != text.strip():
                warnings.warn("input has surrounding whitespace", RuntimeWarning)
            return int(text.strip())
        """),
    EXC("warning_stacklevel_points_at_caller", """
        import warnings

        def test_warning_blames_caller():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                assert legacy_total([1, 2]) == 3
            assert len(caught) == 1
            assert issubclass(caught[0].category, DeprecationWarning)
            assert caught[0].filename == __file__
        """, """
        import warnings

        def legacy_total(values):
            warnings.warn("use sum()", DeprecationWarning, stacklevel=2)
            return sum(values)
        """, """
        import warnings

        def legacy_total(values):
            warnings.warn("use sum()", DeprecationWarning)
            return sum(values)
        """),
    EXC("exception_pickle_roundtrip", """
        import pickle

        def test_pickles():
            error = HTTPError(404, "Not Found")
            again = pickle.loads(pickle.dumps(error))
            assert (again.code, again.reason) == (404, "Not Found")

        def test_str():
            assert str(HTTPError(500, "Oops")) == "500 Oops"
        """, """
        class HTTPError(Exception):
            def __init__(self, code, reason):
                super().__init__(code, reason)
                self.code, self.reason = code, reason

            def __str__(self):
                return f"{self.code} {self.reason}"
        """, """
        class HTTPError(Exception):
            def __init__(self, code, reason):
                super().__init__(f"{code} {reason}")
                self.code, self.reason = code, reason

            def __str__(self):
                return f"{self.code} {self.reason}"
        """),
    EXC("suppressing_context_manager", """
        import pytest

        def test_suppresses_named():
            with ignoring(KeyError):
                {}["missing"]

        def test_other_errors_propagate():
            with pytest.raises(ZeroDivisionError):
                with ignoring(KeyError):
                    1 / 0
        """, """
        class ignoring:
            def __init__(self, *kinds):
                self.kinds = kinds

            def __enter__(self):
                return self

            def __exit__(self, kind, value, tb):
                return kind is not None and issubclass(kind, self.kinds)
        """, """
        class ignoring:
            def __init__(self, *kinds):
                self.kinds = kinds

            def __enter__(self):
                return self

            def __exit__(self, kind, value, tb):
                return True
        """),
    # ---------------------------------------------------------------- callbacks
    CB("sorted_reverse_stable", """
        from operator import itemgetter

        ROWS = [("ann", 2), ("bob", 1), ("cid", 2), ("dan", 1)]

        def test_key_reverse_keeps_ties_in_order():
            assert sort_rows(ROWS, key=itemgetter(1), reverse=True) == [("ann", 2), ("cid", 2), ("bob", 1), ("dan", 1)]

        def test_default_key():
            assert [r[0] for r in sort_rows(ROWS[::-1])] == ["ann", "bob", "cid", "dan"]
        """, """
        def sort_rows(rows, key=None, reverse=False):
            return sorted(rows, key=key or (lambda r: r[0]), reverse=reverse)
        """, """
        def sort_rows(rows, key=None, reverse=False):
            result = sorted(rows, key=key or (lambda r: r[0]))
            return result[::-1] if reverse else result
        """),
    CB("partition_with_generator_input", """
        def test_list_input():
            assert partition(str.isdigit, ["1", "a", "2"]) == (["1", "2"], ["a"])

        def test_generator_input():
            evens, odds = partition(lambda n: n % 2 == 0, (n for n in range(6)))
            assert evens == [0, 2, 4]
            assert odds == [1, 3, 5]
        """, """
        def partition(predicate, items):
            yes, no = [], []
            for item in items:
                (yes if predicate(item) else no).append(item)
            return yes, no
        """, """
        from itertools import filterfalse

        def partition(predicate, items):
            return list(filter(predicate, items)), list(filterfalse(predicate, items))
        """),
    CB("emitter_once_handlers", """
        def test_once_handlers_all_fire_once():
            bus = Emitter()
            seen = []
            bus.once("ping", lambda: seen.append("a"))
            bus.once("ping", lambda: seen.append("b"))
            bus.emit("ping")
            assert seen == ["a", "b"]
            bus.emit("ping")
            assert seen == ["a", "b"]

        def test_unsubscribe():
            bus = Emitter()
            seen = []
            off = bus.on("x", lambda: seen.append(1))
            bus.emit("x")
            off()
            bus.emit("x")
            assert seen == [1]
        """, """
        class Emitter:
            def __init__(self):
                self.handlers = {}

            def on(self, event, handler):
                self.handlers.setdefault(event, []).append(handler)
                return lambda: self.handlers[event].remove(handler)

            def once(self, event, handler):
                def wrapper():
                    off()
                    handler()
                off = self.on(event, wrapper)

            def emit(self, event):
                for handler in list(self.handlers.get(event, [])):
                    handler()
        """, """
        class Emitter:
            def __init__(self):
                self.handlers = {}

            def on(self, event, handler):
                self.handlers.setdefault(event, []).append(handler)
                return lambda: self.handlers[event].remove(handler)

            def once(self, event, handler):
                def wrapper():
                    off()
                    handler()
                off = self.on(event, wrapper)

            def emit(self, event):
                for handler in self.handlers.get(event, []):
                    handler()
        """),
    CB("retry_only_listed_errors", """
        import pytest

        def flaky(failures, error=ConnectionError):
            calls = []
            def fn():
                calls.append(1)
                if len(calls) <= failures:
                    raise error("boom")
                return "ok"
            return fn, calls

        def test_retries_until_success():
            fn, calls = flaky(2)
            assert call_with_retry(fn, attempts=3) == "ok"
            assert len(calls) == 3

        def test_other_errors_not_retried():
            fn, calls = flaky(1, ValueError)
            with pytest.raises(ValueError):
                call_with_retry(fn, attempts=3)
            assert len(calls) == 1
        """, """
        def call_with_retry(fn, attempts, retry_on=(ConnectionError,)):
            for attempt in range(attempts):
                try:
                    return fn()
                except retry_on:
                    if attempt == attempts - 1:
                        raise
        """, """
        def call_with_retry(fn, attempts, retry_on=(ConnectionError,)):
            for attempt in range(attempts):
                try:
                    return fn()
                except Exception:
                    if attempt == attempts - 1:
                        raise
        """),
    CB("memoize_keeps_metadata", """
        def test_caches_calls():
            calls = []

            @memoize
            def square(n):
                "Square a number."
                calls.append(n)
                return n * n

            assert [square(3), square(3), square(4)] == [9, 9, 16]
            assert calls == [3, 4]

        def test_metadata():
            @memoize
            def area(w, h):
                "Area of a rectangle."
                return w * h

            assert area.__name__ == "area"
            assert area.__doc__ == "Area of a rectangle."
            assert area.__wrapped__(2, 3) == 6
        """, """
        import functools

        def memoize(fn):
            cache = {}

            @functools.wraps(fn)
            def wrapper(*args):
                if args not in cache:
                    cache[args] = fn(*args)
                return cache[args]
            return wrapper
        """, """
        def memoize(fn):
            cache = {}

            def wrapper(*args):
                if args not in cache:
                    cache[args] = fn(*args)
                return cache[args]
            return wrapper
        """),
    CB("singledispatch_registered_in_test", """
        from decimal import Decimal

        def test_builtin_types():
            assert describe(3) == "int 3"
            assert describe([1, 2]) == "list of 2"

        def test_register_new_type():
            @describe.register
            def _(value: Decimal):
                return f"decimal {value}"

            assert describe(Decimal("1.5")) == "decimal 1.5"
        """, """
        from functools import singledispatch

        @singledispatch
        def describe(value):
            return f"object {value!r}"

        @describe.register
        def _(value: int):
            return f"int {value}"

        @describe.register
        def _(value: list):
            return f"list of {len(value)}"
        """, """
        def describe(value):
            if isinstance(value, int):
                return f"int {value}"
            if isinstance(value, list):
                return f"list of {len(value)}"
            return f"object {value!r}"
        """),
    CB("tree_walk_visitor", """
        TREE = ("root", [("a", [("a1", [])]), ("b", [])])

        def test_visits_with_depth():
            seen = []
            walk(TREE, lambda name, depth: seen.append((name, depth)))
            assert seen == [("root", 0), ("a", 1), ("a1", 2), ("b", 1)]

        def test_visitor_result_ignored():
            assert walk(("x", []), lambda n, d: "anything") is None
        """, """
        def walk(node, visit, depth=0):
            name, children = node
            visit(name, depth)
            for child in children:
                walk(child, visit, depth + 1)
        """, """
        def walk(node, visit, depth=0):
            name, children = node
            visit(name, depth)
            for child in children:
                walk(child, visit, depth + len(children))
        """),
    # ---------------------------------------------------------------- iterators
    IT("iter_callable_sentinel", """
        def test_until_sentinel():
            assert list(iter(counter_from(1), 4)) == [1, 2, 3]

        def test_independent_counters():
            a, b = counter_from(10), counter_from(10)
            assert (a(), a(), b()) == (10, 11, 10)
        """, """
        def counter_from(start):
            state = [start]

            def next_value():
                value = state[0]
                state[0] += 1
                return value
            return next_value
        """, """
        def counter_from(start):
            state = [start]

            def next_value():
                state[0] += 1
                return state[0]
            return next_value
        """),
    IT("zip_candidate_generators", """
        def test_zip_infinite_with_finite():
            assert list(zip(evens(), odds(), "abc")) == [(0, 1, "a"), (2, 3, "b"), (4, 5, "c")]

        def test_zip_strict_lengths():
            assert list(zip(evens(), range(2))) == [(0, 0), (2, 1)]
        """, """
        def evens():
            n = 0
            while True:
                yield n
                n += 2

        def odds():
            n = 1
            while True:
                yield n
                n += 2
        """, """
        def evens():
            n = 0
            while True:
                n += 2
                yield n

        def odds():
            n = 1
            while True:
                yield n
                n += 2
        """),
    IT("generator_throw_reset", """
        def test_throw_resets():
            acc = accumulator()
            next(acc)
            acc.send(5)
            assert acc.send(3) == 8
            assert acc.throw(Reset) == 0
            assert acc.send(2) == 2

        def test_close():
            acc = accumulator()
            next(acc)
            acc.close()
            assert acc.gi_frame is None
        """, """
        class Reset(Exception):
            pass

        def accumulator():
            total = 0
            while True:
                try:
                    value = yield total
                except Reset:
                    total = 0
                    continue
                total += value
        """, """
        class Reset(Exception):
            pass

        def accumulator():
            total = 0
            while True:
                value = yield total
                total += value
        """),
    IT("contextmanager_restores_on_error", """
        import pytest
        from types import SimpleNamespace

        def test_sets_and_restores():
            obj = SimpleNamespace(level=1)
            with temporarily(obj, "level", 5):
                assert obj.level == 5
            assert obj.level == 1

        def test_restores_after_exception():
            obj = SimpleNamespace(level=1)
            with pytest.raises(RuntimeError):
                with temporarily(obj, "level", 9):
                    raise RuntimeError("inside")
            assert obj.level == 1
        """, """
        from contextlib import contextmanager

        @contextmanager
        def temporarily(obj, name, value):
            old = getattr(obj, name)
            setattr(obj, name, value)
            try:
                yield obj
            finally:
                setattr(obj, name, old)
        """, """
        from contextlib import contextmanager

        @contextmanager
        def temporarily(obj, name, value):
            old = getattr(obj, name)
            setattr(obj, name, value)
            yield obj
            setattr(obj, name, old)
        """),
    IT("peekable_iterator", """
        def test_peek_does_not_consume():
            it = Peekable(iter([1, 2, 3]))
            assert it.peek() == 1
            assert it.peek() == 1
            assert list(it) == [1, 2, 3]

        def test_peek_default_at_end():
            it = Peekable(iter([]))
            assert it.peek("done") == "done"
        """, """
        _NOTHING = object()

        class Peekable:
            def __init__(self, iterator):
                self._it = iterator
                self._head = _NOTHING

            def peek(self, default=None):
                if self._head is _NOTHING:
                    self._head = next(self._it, _NOTHING)
                return default if self._head is _NOTHING else self._head

            def __iter__(self):
                return self

            def __next__(self):
                if self._head is not _NOTHING:
                    head, self._head = self._head, _NOTHING
                    return head
                return next(self._it)
        """, """
        class Peekable:
            def __init__(self, iterator):
                self._it = iterator

            def peek(self, default=None):
                return next(self._it, default)

            def __iter__(self):
                return self

            def __next__(self):
                return next(self._it)
        """),
    IT("pairwise_over_generator", """
        def test_list():
            assert list(with_next([1, 2, 3])) == [(1, 2), (2, 3)]

        def test_generator():
            gen = (c for c in "abc")
            assert list(with_next(gen)) == [("a", "b"), ("b", "c")]
        """, """
        from itertools import tee

        def with_next(iterable):
            a, b = tee(iterable)
            next(b, None)
            return zip(a, b)
        """, """
        def with_next(iterable):
            return zip(iterable, iterable[1:])
        """),
    IT("lazy_flatten", """
        from itertools import islice

        def test_flatten():
            assert list(flatten_lazy([[1], [], [2, 3]])) == [1, 2, 3]

        def test_is_lazy():
            def rows():
                yield [1, 2]
                yield [3]
                raise RuntimeError("read too far")
            assert list(islice(flatten_lazy(rows()), 3)) == [1, 2, 3]
        """, """
        from itertools import chain

        def flatten_lazy(rows):
            return chain.from_iterable(rows)
        """, """
        def flatten_lazy(rows):
            return iter([x for row in rows for x in row])
        """),
    # ---------------------------------------------------------------- pytest features
    PT("tmp_path_log_rotation", """
        def test_rotates(tmp_path):
            (tmp_path / "app.log").write_text("current")
            (tmp_path / "app.log.1").write_text("older")
            rotate(tmp_path / "app.log", keep=3)
            assert not (tmp_path / "app.log").exists()
            assert (tmp_path / "app.log.1").read_text() == "current"
            assert (tmp_path / "app.log.2").read_text() == "older"

        def test_drops_oldest(tmp_path):
            for i, name in enumerate(["app.log", "app.log.1", "app.log.2"]):
                (tmp_path / name).write_text(str(i))
            rotate(tmp_path / "app.log", keep=2)
            assert sorted(p.name for p in tmp_path.iterdir()) == ["app.log.1", "app.log.2"]
            assert (tmp_path / "app.log.2").read_text() == "1"
        """, """
        def rotate(path, keep):
            oldest = path.with_name(f"{path.name}.{keep}")
            if oldest.exists():
                oldest.unlink()
            for i in range(keep - 1, 0, -1):
                src = path.with_name(f"{path.name}.{i}")
                if src.exists():
                    src.rename(path.with_name(f"{path.name}.{i + 1}"))
            path.rename(path.with_name(f"{path.name}.1"))
        """, """
        def rotate(path, keep):
            for i in range(1, keep):
                src = path.with_name(f"{path.name}.{i}")
                if src.exists():
                    src.replace(path.with_name(f"{path.name}.{i + 1}"))
            path.replace(path.with_name(f"{path.name}.1"))
        """),
    PT("getfixturevalue_by_name", """
        import pytest

        @pytest.fixture
        def messy():
            return "  Hello   World "

        @pytest.fixture
        def clean():
            return "hello world"

        @pytest.mark.parametrize("name", ["messy", "clean"])
        def test_normalized(request, name):
            assert normalize(request.getfixturevalue(name)) == "hello world"
        """, """
        def normalize(text):
            return " ".join(text.split()).lower()
        """, """
        def normalize(text):
            return text.strip().lower()
        """),
    PT("fixture_factory_accounts", """
        import pytest

        @pytest.fixture
        def make_account():
            made = []
            def make(owner, balance=0):
                account = Account(owner, balance)
                made.append(account)
                return account
            return make

        def test_independent_histories(make_account):
            a = make_account("ann", 10)
            b = make_account("bob")
            a.deposit(5)
            assert a.history == [5]
            assert b.history == []
            assert (a.balance, b.balance) == (15, 0)
        """, """
        class Account:
            def __init__(self, owner, balance=0):
                self.owner = owner
                self.balance = balance
                self.history = []

            def deposit(self, amount):
                self.balance += amount
                self.history.append(amount)
        """, """
        class Account:
            history = []

            def __init__(self, owner, balance=0):
                self.owner = owner
                self.balance = balance

            def deposit(self, amount):
                self.balance += amount
                self.history.append(amount)
        """),
    PT("approx_dict_stats", """
        import pytest

        def test_stats():
            assert stats([1.0, 2.0, 3.0, 4.0]) == pytest.approx({"mean": 2.5, "std": 1.118034, "n": 4}, rel=1e-6)
        """, """
        import math

        def stats(values):
            n = len(values)
            mean = sum(values) / n
            return {"mean": mean, "std": math.sqrt(sum((v - mean) ** 2 for v in values) / n), "n": n}
        """, """
        import math

        def stats(values):
            n = len(values)
            mean = sum(values) / n
            return {"mean": mean, "std": math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)), "n": n}
        """),
    PT("indirect_parametrize_parser", """
        import pytest

        @pytest.fixture
        def parser(request):
            return Parser(strict=request.param)

        @pytest.mark.parametrize("parser", [True], indirect=True)
        def test_strict_rejects(parser):
            with pytest.raises(ValueError):
                parser.parse("a=1;junk")

        @pytest.mark.parametrize("parser", [False], indirect=True)
        def test_lenient_skips(parser):
            assert parser.parse("a=1;junk;b=2") == {"a": "1", "b": "2"}
        """, """
        class Parser:
            def __init__(self, strict):
                self.strict = strict

            def parse(self, text):
                result = {}
                for part in text.split(";"):
                    if "=" not in part:
                        if self.strict:
                            raise ValueError(part)
                        continue
                    key, value = part.split("=", 1)
                    result[key] = value
                return result
        """, """
        class Parser:
            def __init__(self, strict):
                self.strict = strict

            def parse(self, text):
                result = {}
                for part in text.split(";"):
                    if "=" not in part:
                        continue
                    key, value = part.split("=", 1)
                    result[key] = value
                return result
        """),
    PT("capsys_disabled_banner", """
        def test_report_output(capsys):
            with capsys.disabled():
                print("this goes to the terminal")
            report({"ok": 3, "failed": 1})
            captured = capsys.readouterr()
            assert captured.out == "ok: 3\\nfailed: 1\\n"
            assert captured.err == ""
        """, """
        def report(counts):
            for name, n in counts.items():
                print(f"{name}: {n}")
        """, """
        import sys

        def report(counts):
            for name, n in counts.items():
                print(f"{name}: {n}")
            print("done", file=sys.stderr)
        """),
    PT("monkeypatch_random_random", """
        import random

        def test_coin_follows_random(monkeypatch):
            values = iter([0.1, 0.9, 0.2, 0.8])
            monkeypatch.setattr(random, "random", lambda: next(values))
            assert [coin() for _ in range(4)] == ["heads", "tails", "heads", "tails"]
        """, """
        import random

        def coin():
            return "heads" if random.random() < 0.5 else "tails"
        """, """
        import random

        _rng = random.Random(0)

        def coin():
            return "heads" if _rng.random() < 0.5 else "tails"
        """),
    PT("param_xfail_strict", """
        import pytest

        @pytest.mark.parametrize("n, root", [
            (16, 4),
            (0, 0),
            pytest.param(-4, None, marks=pytest.mark.xfail(raises=ValueError, strict=True)),
        ])
        def test_exact_root(n, root):
            assert exact_sqrt(n) == root
        """, """
        import math

        def exact_sqrt(n):
            if n < 0:
                raise ValueError("negative")
            return math.isqrt(n)
        """, """
        import math

        def exact_sqrt(n):
            if n < 0:
                return None
            return math.isqrt(n)
        """),
    PT("fixture_params_input_types", """
        import pytest

        @pytest.fixture(params=[list, tuple], ids=["list", "tuple"])
        def numbers(request):
            return request.param([3, 1, 2])

        def test_median(numbers):
            assert median(numbers) == 2

        def test_input_untouched(numbers):
            before = list(numbers)
            median(numbers)
            assert list(numbers) == before
        """, """
        def median(values):
            ordered = sorted(values)
            return ordered[len(ordered) // 2]
        """, """
        def median(values):
            values.sort()
            return values[len(values) // 2]
        """),
    PT("caplog_named_logger", """
        import logging

        def test_debug_on_named_logger(caplog):
            caplog.set_level(logging.DEBUG, logger="app.db")
            assert query("select 1") == "ok"
            assert [(r.name, r.levelname) for r in caplog.records] == [("app.db", "DEBUG")]
            assert "select 1" in caplog.text
        """, """
        import logging

        log = logging.getLogger("app.db")

        def query(sql):
            log.debug("running %s", sql)
            return "ok"
        """, """
        import logging

        def query(sql):
            logging.debug("running %s", sql)
            return "ok"
        """),
    # ---------------------------------------------------------------- unittest
    UT("contract_mixin_two_shapes", """
        import math
        import unittest

        class AreaContract:
            def test_area_positive(self):
                self.assertGreater(self.make().area(), 0)

            def test_scaled_area(self):
                shape = self.make()
                self.assertAlmostEqual(shape.scaled(2).area(), 4 * shape.area())

        class TestCircle(AreaContract, unittest.TestCase):
            def make(self):
                return Circle(1.5)

            def test_known_area(self):
                self.assertAlmostEqual(Circle(1).area(), math.pi)

        class TestSquare(AreaContract, unittest.TestCase):
            def make(self):
                return Square(3)
        """, """
        import math

        class Circle:
            def __init__(self, r):
                self.r = r

            def area(self):
                return math.pi * self.r ** 2

            def scaled(self, k):
                return Circle(self.r * k)

        class Square:
            def __init__(self, side):
                self.side = side

            def area(self):
                return self.side ** 2

            def scaled(self, k):
                return Square(self.side * k)
        """, """
        import math

        class Circle:
            def __init__(self, r):
                self.r = r

            def area(self):
                return math.pi * self.r ** 2

            def scaled(self, k):
                return Circle(self.r * k)

        class Square:
            def __init__(self, side):
                self.side = side

            def area(self):
                return self.side ** 2

            def scaled(self, k):
                return Square(self.side * k * k)
        """),
    UT("enter_context_pool", """
        import unittest

        class PoolTest(unittest.TestCase):
            def setUp(self):
                self.pool = self.enterContext(Pool(size=2))

            def test_acquire(self):
                a = self.pool.acquire()
                b = self.pool.acquire()
                self.assertNotEqual(a, b)
                self.assertIsNone(self.pool.acquire())

            def test_open(self):
                self.assertFalse(self.pool.closed)
        """, """
        class Pool:
            def __init__(self, size):
                self.free = list(range(size))
                self.closed = False

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.closed = True

            def acquire(self):
                return self.free.pop() if self.free else None
        """, """
        class Pool:
            def __init__(self, size):
                self.free = list(range(size))
                self.closed = False

            def __enter__(self):
                self.closed = False

            def __exit__(self, *exc):
                self.closed = True

            def acquire(self):
                return self.free.pop() if self.free else None
        """),
    UT("assert_logs_level", """
        import unittest

        class TransferTest(unittest.TestCase):
            def test_logs_error_on_overdraft(self):
                with self.assertLogs("bank", level="ERROR") as logs:
                    self.assertFalse(transfer(10, 50))
                self.assertEqual(logs.output, ["ERROR:bank:overdraft: 50 > 10"])

            def test_ok(self):
                self.assertTrue(transfer(50, 10))
        """, """
        import logging

        log = logging.getLogger("bank")

        def transfer(balance, amount):
            if amount > balance:
                log.error("overdraft: %s > %s", amount, balance)
                return False
            return True
        """, """
        import logging

        log = logging.getLogger("bank")

        def transfer(balance, amount):
            if amount > balance:
                log.warning("overdraft: %s > %s", amount, balance)
                return False
            return True
        """),
    UT("assert_warns_regex", """
        import unittest

        class ConfigTest(unittest.TestCase):
            def test_renamed_key_warns(self):
                with self.assertWarnsRegex(FutureWarning, "timeout_ms"):
                    self.assertEqual(read_timeout({"timeout": 3}), 3000)

            def test_new_key(self):
                self.assertEqual(read_timeout({"timeout_ms": 250}), 250)
        """, """
        import warnings

        def read_timeout(cfg):
            if "timeout" in cfg:
                warnings.warn("'timeout' is renamed 'timeout_ms'", FutureWarning)
                return cfg["timeout"] * 1000
            return cfg["timeout_ms"]
        """, """
        import warnings

        def read_timeout(cfg):
            if "timeout" in cfg:
                warnings.warn("'timeout' is renamed 'timeout_ms'", DeprecationWarning)
                return cfg["timeout"] * 1000
            return cfg["timeout_ms"]
        """),
    UT("multiline_report_equal", """
        import unittest

        class ReportTest(unittest.TestCase):
            def test_table(self):
                expected = "name  qty\\napple   3\\npear   12\\n"
                self.assertMultiLineEqual(render({"apple": 3, "pear": 12}), expected)
        """, """
        def render(counts):
            lines = ["name  qty"]
            lines += [f"{name:<5}{qty:>4}" for name, qty in counts.items()]
            return "\\n".join(lines) + "\\n"
        """, """
        def render(counts):
            lines = ["name  qty"]
            lines += [f"{name:<5} {qty:>3} " for name, qty in counts.items()]
            return "\\n".join(lines) + "\\n"
        """),
    UT("isolated_asyncio_testcase", """
        import unittest

        class FetchTest(unittest.IsolatedAsyncioTestCase):
            async def test_fetch_all(self):
                results = await fetch_all(["a", "bb", "ccc"])
                self.assertEqual(results, {"a": 1, "bb": 2, "ccc": 3})

            async def test_empty(self):
                self.assertEqual(await fetch_all([]), {})
        """, """
        import asyncio

        async def fetch_one(key):
            await asyncio.sleep(0)
            return len(key)

        async def fetch_all(keys):
            values = await asyncio.gather(*(fetch_one(k) for k in keys))
            return dict(zip(keys, values))
        """, """
        import asyncio

        async def fetch_one(key):
            await asyncio.sleep(0)
            return len(key)

        async def fetch_all(keys):
            values = await asyncio.gather(*(fetch_one(k) for k in keys))
            return dict(zip(keys, sorted(values, reverse=True)))
        """),
    UT("setup_module_functions", """
        import unittest

        STATE = {}

        def setUpModule():
            STATE["registry"] = build_registry(["b", "a"])

        def tearDownModule():
            STATE.clear()

        class RegistryTest(unittest.TestCase):
            def test_sorted_names(self):
                self.assertEqual(STATE["registry"].names(), ["a", "b"])

            def test_lookup(self):
                self.assertEqual(STATE["registry"].index("b"), 1)
        """, """
        class Registry:
            def __init__(self, names):
                self._names = sorted(names)

            def names(self):
                return list(self._names)

            def index(self, name):
                return self._names.index(name)

        def build_registry(names):
            return Registry(names)
        """, """
        class Registry:
            def __init__(self, names):
                self._names = list(names)

            def names(self):
                return sorted(self._names)

            def index(self, name):
                return self._names.index(name)

        def build_registry(names):
            return Registry(names)
        """),
    UT("skip_unless_candidate_flag", """
        import unittest

        class SpeedupTest(unittest.TestCase):
            @unittest.skipUnless(HAS_FAST_PATH, "no fast path")
            def test_fast_matches_slow(self):
                self.assertEqual(fast_sum(range(10)), slow_sum(range(10)))

            def test_slow(self):
                self.assertEqual(slow_sum([1, 2, 3]), 6)
        """, """
        HAS_FAST_PATH = False

        def slow_sum(values):
            total = 0
            for v in values:
                total += v
            return total
        """, """
        HAS_FAST_PATH = True

        def slow_sum(values):
            total = 0
            for v in values:
                total += v
            return total

        def fast_sum(values):
            return sum(values) - 1
        """),
    # ---------------------------------------------------------------- module state
    ST("lru_cache_info", """
        def test_cache_hits():
            price.cache_clear()
            price("a"); price("a"); price("b")
            info = price.cache_info()
            assert (info.hits, info.misses) == (1, 2)

        def test_bounded():
            price.cache_clear()
            for sku in "abc":
                price(sku)
            assert price.cache_info().currsize == 2
            assert price.cache_info().maxsize == 2
        """, """
        from functools import lru_cache

        @lru_cache(maxsize=2)
        def price(sku):
            return len(sku) * 100
        """, """
        from functools import lru_cache

        @lru_cache(maxsize=None)
        def price(sku):
            return len(sku) * 100
        """),
    ST("ticket_counter_across_tests", """
        def test_first_ticket():
            assert next_ticket() == 1

        def test_second_ticket():
            assert next_ticket() == 2

        def test_formatted():
            assert ticket_label() == "T-0003"
        """, """
        _count = 0

        def next_ticket():
            global _count
            _count += 1
            return _count

        def ticket_label():
            return f"T-{next_ticket():04d}"
        """, """
        def next_ticket():
            count = 0
            count += 1
            return count

        def ticket_label():
            return f"T-{next_ticket():04d}"
        """),
    ST("function_attribute_counter", """
        def test_counts_misses_only():
            fetch.misses = 0
            assert fetch("a") == "A"
            assert fetch("a") == "A"
            assert fetch("b") == "B"
            assert fetch.misses == 2
        """, """
        _seen = {}

        def fetch(key):
            if key not in _seen:
                fetch.misses += 1
                _seen[key] = key.upper()
            return _seen[key]

        fetch.misses = 0
        """, """
        _seen = {}

        def fetch(key):
            fetch.misses += 1
            if key not in _seen:
                _seen[key] = key.upper()
            return _seen[key]

        fetch.misses = 0
        """),
    ST("monkeypatch_setitem_config", """
        def test_debug_level(monkeypatch):
            monkeypatch.setitem(CONFIG, "debug", True)
            assert log_level() == "DEBUG"

        def test_default_level():
            assert log_level() == "INFO"
        """, """
        CONFIG = {"debug": False}

        def log_level():
            return "DEBUG" if CONFIG["debug"] else "INFO"
        """, """
        CONFIG = {"debug": False}
        _DEBUG = CONFIG["debug"]

        def log_level():
            return "DEBUG" if _DEBUG else "INFO"
        """),
    ST("class_counter_not_shadowed", """
        def test_counts_instances():
            before = Widget.created
            Widget(); Widget()
            assert Widget.created == before + 2

        def test_ids_unique():
            assert Widget().id != Widget().id
        """, """
        class Widget:
            created = 0

            def __init__(self):
                Widget.created += 1
                self.id = Widget.created
        """, """
        class Widget:
            created = 0

            def __init__(self):
                self.created += 1
                self.id = id(self)
        """),
    # ---------------------------------------------------------------- algorithm controls
    ALG("topological_order", """
        def test_chain():
            assert topo_sort({"d": ["c"], "c": ["b", "a"], "b": ["a"], "a": []}) == ["a", "b", "c", "d"]

        def test_ties_alphabetical():
            assert topo_sort({"x": [], "y": [], "z": ["x", "y"]}) == ["x", "y", "z"]
        """, """
        import heapq

        def topo_sort(deps):
            remaining = {k: set(v) for k, v in deps.items()}
            ready = [k for k, v in remaining.items() if not v]
            heapq.heapify(ready)
            order = []
            while ready:
                node = heapq.heappop(ready)
                order.append(node)
                for other, needs in remaining.items():
                    if node in needs:
                        needs.discard(node)
                        if not needs:
                            heapq.heappush(ready, other)
            return order
        """, """
        def topo_sort(deps):
            return sorted(deps, key=lambda k: len(deps[k]))
        """),
    ALG("merge_touching_intervals", """
        def test_overlapping():
            assert merge_intervals([(1, 3), (2, 6), (8, 10)]) == [(1, 6), (8, 10)]

        def test_touching_merge():
            assert merge_intervals([(1, 2), (2, 4)]) == [(1, 4)]

        def test_unsorted():
            assert merge_intervals([(5, 6), (1, 2)]) == [(1, 2), (5, 6)]
        """, """
        def merge_intervals(intervals):
            merged = []
            for start, end in sorted(intervals):
                if merged and start <= merged[-1][1]:
                    merged[-1] = (merged[-1][0], max(merged[-1][1], end))
                else:
                    merged.append((start, end))
            return merged
        """, """
        def merge_intervals(intervals):
            merged = []
            for start, end in sorted(intervals):
                if merged and start < merged[-1][1]:
                    merged[-1] = (merged[-1][0], max(merged[-1][1], end))
                else:
                    merged.append((start, end))
            return merged
        """),
    ALG("lcs_length", """
        import pytest

        @pytest.mark.parametrize("a, b, n", [("abcde", "ace", 3), ("abc", "def", 0), ("", "x", 0), ("aaaa", "aa", 2)])
        def test_lcs(a, b, n):
            assert lcs(a, b) == n
        """, """
        def lcs(a, b):
            prev = [0] * (len(b) + 1)
            for x in a:
                cur = [0]
                for j, y in enumerate(b):
                    cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
                prev = cur
            return prev[-1]
        """, """
        def lcs(a, b):
            count, j = 0, 0
            for x in a:
                k = b.find(x, j)
                if k >= 0:
                    count += 1
                    j = k
            return count
        """),
    ALG("dijkstra_weighted", """
        def test_prefers_cheaper_longer_path():
            graph = {"a": {"b": 10, "c": 1}, "c": {"d": 1}, "d": {"b": 1}, "b": {}}
            assert shortest(graph, "a", "b") == 3

        def test_unreachable():
            assert shortest({"a": {}, "b": {}}, "a", "b") is None
        """, """
        import heapq

        def shortest(graph, start, goal):
            dist = {start: 0}
            heap = [(0, start)]
            while heap:
                d, node = heapq.heappop(heap)
                if node == goal:
                    return d
                if d > dist.get(node, float("inf")):
                    continue
                for nxt, w in graph.get(node, {}).items():
                    if d + w < dist.get(nxt, float("inf")):
                        dist[nxt] = d + w
                        heapq.heappush(heap, (d + w, nxt))
            return None
        """, """
        from collections import deque

        def shortest(graph, start, goal):
            dist = {start: 0}
            queue = deque([start])
            while queue:
                node = queue.popleft()
                for nxt, w in graph.get(node, {}).items():
                    if nxt not in dist:
                        dist[nxt] = dist[node] + w
                        queue.append(nxt)
            return dist.get(goal)
        """),
    ALG("knapsack_01", """
        def test_best_value():
            assert knapsack([(60, 10), (100, 20), (120, 30)], 50) == 220

        def test_nothing_fits():
            assert knapsack([(5, 10)], 3) == 0
        """, """
        def knapsack(items, capacity):
            best = [0] * (capacity + 1)
            for value, weight in items:
                for c in range(capacity, weight - 1, -1):
                    best[c] = max(best[c], best[c - weight] + value)
            return best[capacity]
        """, """
        def knapsack(items, capacity):
            total = 0
            for value, weight in sorted(items, key=lambda i: i[0] / i[1], reverse=True):
                if weight <= capacity:
                    capacity -= weight
                    total += value
            return total
        """),
    ALG("palindrome_permutation", """
        def test_yes():
            assert can_be_palindrome("carrace")
            assert can_be_palindrome("aabb")

        def test_no():
            assert not can_be_palindrome("abc")
            assert not can_be_palindrome("aabbcd")
        """, """
        from collections import Counter

        def can_be_palindrome(text):
            return sum(n % 2 for n in Counter(text).values()) <= 1
        """, """
        from collections import Counter

        def can_be_palindrome(text):
            return sum(n % 2 for n in Counter(text).values()) <= 2
        """),
]

HELDOUT_FAMILIES = tuple(dict.fromkeys(s.family for s in SHAPES))


def table(comparisons: Sequence[Comparison]) -> str:
    """corpus.table for the held-out families: one table per isolation mode, then every disagreement."""
    lines: list[str] = []
    for isolation in dict.fromkeys(c.case.isolation for c in comparisons):
        rows = {f: FamilyCount(f) for f in HELDOUT_FAMILIES}
        for c in comparisons:
            if c.case.isolation != isolation:
                continue
            r = rows[c.case.shape.family]
            if c.case.variant == "honest":
                r.shapes += 1
                r.honest_total += 1
                r.honest_agreed += c.agrees
            else:
                r.wrong_total += 1
                r.wrong_agreed += c.agrees
                r.wrong_verdict_agreed += c.verdict_agrees
        fields = ("shapes", "honest_agreed", "honest_total", "wrong_agreed", "wrong_verdict_agreed", "wrong_total")
        total = FamilyCount("**all**", *(sum(getattr(r, f) for r in rows.values()) for f in fields))
        lines += [f"### isolation={isolation}", "",
                  "| family | shapes | honest agreed | wrong agreed (verdict and names) | wrong verdict agreed |",
                  "|---|---:|---:|---:|---:|"]
        lines += [f"| {r.family} | {r.shapes} | {r.honest_agreed}/{r.honest_total} | {r.wrong_agreed}/{r.wrong_total} "
                  f"| {r.wrong_verdict_agreed}/{r.wrong_total} |" for r in [*rows.values(), total]]
        lines.append("")
    lines += ["### Disagreements", "", "| case | plain pytest | codeheal | codeheal's message |", "|---|---|---|---|"]
    for c in comparisons:
        if not c.agrees:
            lines.append(f"| {c.case.id} | {_cell(c.plain)} | {_cell(c.judged)} | {_escape(c.judged.message)[:160]} |")
    return "\n".join(lines) + "\n"
