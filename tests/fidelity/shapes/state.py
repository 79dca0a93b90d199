"""State and mutation: arguments changed in place, identity, module state, seeded randomness,
the environment read by the candidate."""

from functools import partial

from tests.fidelity.shapes import shape

S = partial(shape, "state")

SHAPES = [
    S("sort_in_place", """
        def test_sorts_argument():
            items = [3, 1, 2]
            assert sort_inplace(items) is None
            assert items == [1, 2, 3]
        """, """
        def sort_inplace(items):
            items.sort()
        """, """
        def sort_inplace(items):
            items = sorted(items)
        """),
    S("append_to_argument", """
        def test_appends_total():
            row = [1, 2, 3]
            add_total(row)
            assert row == [1, 2, 3, 6]
        """, """
        def add_total(row):
            row.append(sum(row))
        """, """
        def add_total(row):
            row = row + [sum(row)]
            return row
        """),
    S("nested_mutation", """
        def test_increments_nested():
            data = {"stats": {"hits": 1}}
            record_hit(data)
            record_hit(data)
            assert data["stats"]["hits"] == 3
        """, """
        def record_hit(data):
            data["stats"]["hits"] += 1
        """, """
        import copy

        def record_hit(data):
            data = copy.deepcopy(data)
            data["stats"]["hits"] += 1
            return data
        """),
    S("returns_same_object", """
        def test_fluent_builder():
            q = Query()
            assert q.where("a").where("b") is q
            assert q.filters == ["a", "b"]
        """, """
        class Query:
            def __init__(self):
                self.filters = []

            def where(self, condition):
                self.filters.append(condition)
                return self
        """, """
        class Query:
            def __init__(self, filters=()):
                self.filters = list(filters)

            def where(self, condition):
                return Query(self.filters + [condition])
        """),
    S("does_not_mutate_input", """
        def test_input_untouched():
            original = [3, 1, 2]
            result = sorted_copy(original)
            assert result == [1, 2, 3]
            assert original == [3, 1, 2]
            assert result is not original
        """, """
        def sorted_copy(items):
            return sorted(items)
        """, """
        def sorted_copy(items):
            items.sort()
            return items
        """),
    S("module_level_counter", """
        def test_ids_increase():
            a = next_id()
            b = next_id()
            assert b == a + 1

        def test_reset():
            reset_ids()
            assert next_id() == 1
        """, """
        _counter = 0

        def next_id():
            global _counter
            _counter += 1
            return _counter

        def reset_ids():
            global _counter
            _counter = 0
        """, """
        _counter = 0

        def next_id():
            global _counter
            _counter += 1
            return _counter

        def reset_ids():
            _counter = 0
        """),
    S("module_registry_decorator", """
        def test_registered_plugins():
            @register
            def alpha():
                return "a"

            assert "alpha" in PLUGINS
            assert PLUGINS["alpha"]() == "a"
        """, """
        PLUGINS = {}

        def register(func):
            PLUGINS[func.__name__] = func
            return func
        """, """
        PLUGINS = {}

        def register(func):
            PLUGINS[func.__qualname__] = func
            return func
        """),
    S("random_seeded", """
        import random

        def test_reproducible_shuffle():
            random.seed(42)
            first = shuffled(list(range(10)))
            random.seed(42)
            second = shuffled(list(range(10)))
            assert first == second
            assert sorted(first) == list(range(10))
        """, """
        import random

        def shuffled(items):
            items = list(items)
            random.shuffle(items)
            return items
        """, """
        import random

        _rng = random.Random()

        def shuffled(items):
            items = list(items)
            _rng.shuffle(items)
            return items
        """),
    S("random_seed_expected_value", """
        import random

        def test_roll_after_seed():
            random.seed(7)
            expected = [random.randint(1, 6) for _ in range(5)]
            random.seed(7)
            assert roll_dice(5) == expected
        """, """
        import random

        def roll_dice(n):
            return [random.randint(1, 6) for _ in range(n)]
        """, """
        import random

        def roll_dice(n):
            return [random.randrange(1, 6) for _ in range(n)]
        """),
    S("environ_set_by_test", """
        import os

        def test_reads_after_set():
            os.environ["GREETING_NAME"] = "zoe"
            try:
                assert greeting() == "hi zoe"
            finally:
                del os.environ["GREETING_NAME"]
        """, """
        import os

        def greeting():
            return f"hi {os.environ.get('GREETING_NAME', 'there')}"
        """, """
        import os

        NAME = os.environ.get("GREETING_NAME", "there")

        def greeting():
            return f"hi {NAME}"
        """),
    S("environ_written_by_candidate", """
        import os

        def test_sets_env():
            try:
                export_setting("EXPORTED_FLAG", 1)
                assert os.environ["EXPORTED_FLAG"] == "1"
            finally:
                os.environ.pop("EXPORTED_FLAG", None)
        """, """
        import os

        def export_setting(name, value):
            os.environ[name] = str(value)
        """, """
        import os

        def export_setting(name, value):
            os.putenv(name, str(value))
        """),
    S("class_attribute_shared", """
        def test_instances_share_count():
            Widget.created = 0
            Widget(); Widget()
            assert Widget.created == 2

        def test_own_list_not_shared():
            a, b = Widget(), Widget()
            a.tags.append("x")
            assert b.tags == []
        """, """
        class Widget:
            created = 0

            def __init__(self):
                Widget.created += 1
                self.tags = []
        """, """
        class Widget:
            created = 0
            tags = []

            def __init__(self):
                Widget.created += 1
        """),
    S("mutable_default_argument", """
        def test_separate_calls():
            assert add_item("a") == ["a"]
            assert add_item("b") == ["b"]

        def test_given_list():
            box = ["x"]
            assert add_item("y", box) == ["x", "y"]
        """, """
        def add_item(item, items=None):
            if items is None:
                items = []
            items.append(item)
            return items
        """, """
        def add_item(item, items=[]):
            items.append(item)
            return items
        """),
    S("identity_of_singleton", """
        def test_same_instance():
            assert get_config() is get_config()

        def test_shared_changes():
            get_config()["mode"] = "x"
            assert get_config()["mode"] == "x"
        """, """
        _config = None

        def get_config():
            global _config
            if _config is None:
                _config = {"mode": "default"}
            return _config
        """, """
        def get_config():
            return {"mode": "default"}
        """),
    S("swap_in_place", """
        def test_swap_first_last():
            items = [1, 2, 3]
            swap_ends(items)
            assert items == [3, 2, 1]
        """, """
        def swap_ends(items):
            items[0], items[-1] = items[-1], items[0]
        """, """
        def swap_ends(items):
            items[0] = items[-1]
            items[-1] = items[0]
        """),
    S("dict_update_in_place", """
        def test_merge_into():
            target = {"a": 1}
            merge_into(target, {"b": 2, "a": 5})
            assert target == {"a": 5, "b": 2}
        """, """
        def merge_into(target, source):
            target.update(source)
        """, """
        def merge_into(target, source):
            for key, value in source.items():
                target.setdefault(key, value)
        """),
    S("counter_object_state", """
        def test_stateful_counter():
            c = make_counter()
            assert [c(), c(), c()] == [1, 2, 3]

        def test_independent():
            a, b = make_counter(), make_counter()
            a(); a()
            assert b() == 1
        """, """
        def make_counter():
            count = 0

            def counter():
                nonlocal count
                count += 1
                return count
            return counter
        """, """
        _count = [0]

        def make_counter():
            def counter():
                _count[0] += 1
                return _count[0]
            return counter
        """),
    S("file_appended_state", """
        def test_log_appends(tmp_path):
            path = tmp_path / "log.txt"
            append_line(path, "one")
            append_line(path, "two")
            assert path.read_text() == "one\\ntwo\\n"
        """, """
        def append_line(path, line):
            with open(path, "a") as handle:
                handle.write(line + "\\n")
        """, """
        def append_line(path, line):
            with open(path, "w") as handle:
                handle.write(line + "\\n")
        """),
    S("cache_shared_between_calls", """
        def test_cached_calls():
            calls = []

            def loader(key):
                calls.append(key)
                return key.upper()

            cache = Cache(loader)
            assert cache.get("a") == "A"
            assert cache.get("a") == "A"
            assert calls == ["a"]
        """, """
        class Cache:
            def __init__(self, loader):
                self.loader, self.store = loader, {}

            def get(self, key):
                if key not in self.store:
                    self.store[key] = self.loader(key)
                return self.store[key]
        """, """
        class Cache:
            def __init__(self, loader):
                self.loader, self.store = loader, {}

            def get(self, key):
                self.store[key] = self.loader(key)
                return self.store[key]
        """),
    S("deque_rotate_in_place", """
        from collections import deque

        def test_rotates_argument():
            d = deque([1, 2, 3, 4])
            rotate_left(d, 1)
            assert d == deque([2, 3, 4, 1])
        """, """
        def rotate_left(d, n):
            d.rotate(-n)
        """, """
        def rotate_left(d, n):
            d.rotate(n)
        """),
]
