"""Generators and iterators the candidate returns."""

from functools import partial

from tests.fidelity.shapes import shape

S = partial(shape, "generators")

SHAPES = [
    S("fibonacci_next", """
        def test_next_values():
            gen = fibonacci()
            assert [next(gen) for _ in range(6)] == [0, 1, 1, 2, 3, 5]
        """, """
        def fibonacci():
            a, b = 0, 1
            while True:
                yield a
                a, b = b, a + b
        """, """
        def fibonacci():
            a, b = 1, 1
            while True:
                yield a
                a, b = b, a + b
        """),
    S("islice_infinite", """
        from itertools import islice

        def test_primes_islice():
            assert list(islice(primes(), 5)) == [2, 3, 5, 7, 11]
        """, """
        def primes():
            n = 2
            while True:
                if all(n % p for p in range(2, int(n ** 0.5) + 1)):
                    yield n
                n += 1
        """, """
        def primes():
            n = 2
            while True:
                if all(n % p for p in range(2, n // 2)):
                    yield n
                n += 1
        """),
    S("is_generator_type", """
        import types

        def test_lazy():
            result = chunks([1, 2, 3, 4, 5], 2)
            assert isinstance(result, types.GeneratorType)
            assert list(result) == [[1, 2], [3, 4], [5]]
        """, """
        def chunks(items, size):
            for i in range(0, len(items), size):
                yield items[i:i + size]
        """, """
        def chunks(items, size):
            for i in range(0, len(items) - 1, size):
                yield items[i:i + size]
        """),
    S("list_of_generator", """
        def test_list():
            assert list(pairwise_diffs([1, 4, 9, 16])) == [3, 5, 7]

        def test_empty():
            assert list(pairwise_diffs([])) == []
        """, """
        def pairwise_diffs(values):
            for a, b in zip(values, values[1:]):
                yield b - a
        """, """
        def pairwise_diffs(values):
            for a, b in zip(values, values[1:]):
                yield a - b
        """),
    S("generator_exhausts", """
        def test_exhausted_after_one_pass():
            gen = countdown(2)
            assert list(gen) == [2, 1]
            assert list(gen) == []
        """, """
        def countdown(n):
            while n > 0:
                yield n
                n -= 1
        """, """
        def countdown(n):
            while n >= 0:
                yield n
                n -= 1
        """),
    S("generator_send", """
        def test_running_average_send():
            avg = running_average()
            next(avg)
            assert avg.send(10) == 10
            assert avg.send(20) == 15
        """, """
        def running_average():
            total = count = 0
            average = None
            while True:
                value = yield average
                total += value
                count += 1
                average = total / count
        """, """
        def running_average():
            total = count = 0
            average = None
            while True:
                value = yield average
                total += value
                count += 1
                average = total / (count + 1) if count > 1 else total
        """),
    S("iterator_class_returned", """
        def test_iter_protocol():
            it = letters("ab")
            assert iter(it) is it
            assert next(it) == "a"
            assert next(it) == "b"
        """, """
        class Letters:
            def __init__(self, text):
                self.text, self.i = text, 0

            def __iter__(self):
                return self

            def __next__(self):
                if self.i >= len(self.text):
                    raise StopIteration
                self.i += 1
                return self.text[self.i - 1]

        def letters(text):
            return Letters(text)
        """, """
        class Letters:
            def __init__(self, text):
                self.text, self.i = text, 0

            def __iter__(self):
                return Letters(self.text)

            def __next__(self):
                if self.i >= len(self.text):
                    raise StopIteration
                self.i += 1
                return self.text[self.i - 1]

        def letters(text):
            return Letters(text)
        """),
    S("yield_from_flatten", """
        def test_flatten_nested():
            assert list(flatten([1, [2, [3, [4]]], 5])) == [1, 2, 3, 4, 5]
        """, """
        def flatten(items):
            for item in items:
                if isinstance(item, list):
                    yield from flatten(item)
                else:
                    yield item
        """, """
        def flatten(items):
            for item in items:
                if isinstance(item, list):
                    yield from item
                else:
                    yield item
        """),
    S("map_object_returned", """
        def test_map_lazy_squares():
            result = squares([1, 2, 3])
            assert not isinstance(result, list)
            assert list(result) == [1, 4, 9]
        """, """
        def squares(values):
            return map(lambda v: v * v, values)
        """, """
        def squares(values):
            return [v * v for v in values]
        """),
    S("zip_longest_pairs", """
        def test_pairs_with_fill():
            assert list(pair_up([1, 2, 3], "ab")) == [(1, "a"), (2, "b"), (3, None)]
        """, """
        from itertools import zip_longest

        def pair_up(a, b):
            return zip_longest(a, b)
        """, """
        def pair_up(a, b):
            return zip(a, b)
        """),
    S("enumerate_like", """
        def test_numbered_from_one():
            assert list(numbered(["x", "y"])) == [(1, "x"), (2, "y")]
        """, """
        def numbered(items):
            return enumerate(items, start=1)
        """, """
        def numbered(items):
            return enumerate(items)
        """),
    S("generator_with_return_value", """
        def test_return_value_in_stopiteration():
            gen = consume_all([1, 2, 3])
            assert list(gen) == [1, 2, 3]

        def test_stopiteration_value():
            gen = consume_all([4])
            next(gen)
            try:
                next(gen)
            except StopIteration as stop:
                assert stop.value == 1
        """, """
        def consume_all(items):
            count = 0
            for item in items:
                count += 1
                yield item
            return count
        """, """
        def consume_all(items):
            count = 0
            for item in items:
                yield item
                count += 1
            return count - 1
        """),
    S("dict_items_view", """
        def test_sorted_items():
            assert list(sorted_items({"b": 2, "a": 1})) == [("a", 1), ("b", 2)]

        def test_keys_view():
            keys = live_keys({"x": 1})
            assert set(keys) == {"x"}
        """, """
        def sorted_items(d):
            return iter(sorted(d.items()))

        def live_keys(d):
            return d.keys()
        """, """
        def sorted_items(d):
            return iter(d.items())

        def live_keys(d):
            return d.keys()
        """),
    S("range_returned", """
        def test_range_object():
            r = evens_below(10)
            assert list(r) == [0, 2, 4, 6, 8]
            assert 4 in r
            assert len(r) == 5
        """, """
        def evens_below(n):
            return range(0, n, 2)
        """, """
        def evens_below(n):
            return range(0, n + 1, 2)
        """),
    S("reversed_iterator", """
        def test_backwards():
            assert "".join(backwards("abc")) == "cba"
        """, """
        def backwards(text):
            return reversed(text)
        """, """
        def backwards(text):
            return iter(text)
        """),
    S("sliding_window_gen", """
        def test_windows():
            assert list(windows([1, 2, 3, 4], 3)) == [(1, 2, 3), (2, 3, 4)]

        def test_window_too_big():
            assert list(windows([1], 2)) == []
        """, """
        from collections import deque

        def windows(items, n):
            window = deque(maxlen=n)
            for item in items:
                window.append(item)
                if len(window) == n:
                    yield tuple(window)
        """, """
        def windows(items, n):
            for i in range(len(items) - n):
                yield tuple(items[i:i + n])
        """),
    S("groupby_runs", """
        def test_run_length():
            assert list(run_lengths("aaabcc")) == [("a", 3), ("b", 1), ("c", 2)]
        """, """
        from itertools import groupby

        def run_lengths(text):
            for key, group in groupby(text):
                yield key, sum(1 for _ in group)
        """, """
        from collections import Counter

        def run_lengths(text):
            yield from Counter(text).most_common()
        """),
    S("generator_close_cleanup", """
        def test_cleanup_on_close():
            log = []
            gen = tracked(log)
            next(gen)
            gen.close()
            assert log == ["open", "closed"]
        """, """
        def tracked(log):
            log.append("open")
            try:
                while True:
                    yield 1
            finally:
                log.append("closed")
        """, """
        def tracked(log):
            log.append("open")
            while True:
                yield 1
            log.append("closed")
        """),
    S("cycle_take", """
        def test_round_robin():
            assert take(round_robin(["a", "b"]), 5) == ["a", "b", "a", "b", "a"]
        """, """
        from itertools import cycle, islice

        def round_robin(items):
            return cycle(items)

        def take(iterable, n):
            return list(islice(iterable, n))
        """, """
        from itertools import islice

        def round_robin(items):
            return iter(items * 2)

        def take(iterable, n):
            return list(islice(iterable, n))
        """),
    S("accumulate_returned", """
        def test_prefix_max():
            assert list(prefix_max([3, 1, 4, 1, 5])) == [3, 3, 4, 4, 5]
        """, """
        from itertools import accumulate

        def prefix_max(values):
            return accumulate(values, max)
        """, """
        from itertools import accumulate

        def prefix_max(values):
            return accumulate(values)
        """),
]
