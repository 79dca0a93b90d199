"""Property-based tests with hypothesis (@given): the constraints a specification states."""

from functools import partial

from tests.fidelity.shapes import shape

S = partial(shape, "properties")

SHAPES = [
    S("reverse_involution", """
        from hypothesis import given, strategies as st

        @given(st.lists(st.integers()))
        def test_reverse_twice(xs):
            assert reverse(reverse(xs)) == xs

        @given(st.lists(st.integers(), min_size=1))
        def test_first_becomes_last(xs):
            assert reverse(xs)[-1] == xs[0]
        """, """
        def reverse(xs):
            return xs[::-1]
        """, """
        def reverse(xs):
            return sorted(xs, reverse=True)
        """),
    S("sort_properties", """
        from collections import Counter
        from hypothesis import given, strategies as st

        @given(st.lists(st.integers()))
        def test_sorted_and_permutation(xs):
            out = my_sort(xs)
            assert all(a <= b for a, b in zip(out, out[1:]))
            assert Counter(out) == Counter(xs)
        """, """
        def my_sort(xs):
            out = list(xs)
            for i in range(1, len(out)):
                j = i
                while j and out[j - 1] > out[j]:
                    out[j - 1], out[j] = out[j], out[j - 1]
                    j -= 1
            return out
        """, """
        def my_sort(xs):
            return sorted(set(xs))
        """),
    S("encode_decode_roundtrip", """
        from hypothesis import given, strategies as st

        @given(st.text())
        def test_roundtrip(s):
            assert rle_decode(rle_encode(s)) == s
        """, """
        from itertools import groupby

        def rle_encode(s):
            return [(c, len(list(g))) for c, g in groupby(s)]

        def rle_decode(pairs):
            return "".join(c * n for c, n in pairs)
        """, """
        def rle_encode(s):
            return [(c, s.count(c)) for c in dict.fromkeys(s)]

        def rle_decode(pairs):
            return "".join(c * n for c, n in pairs)
        """),
    S("abs_nonnegative", """
        from hypothesis import given, strategies as st

        @given(st.integers())
        def test_nonnegative(n):
            assert my_abs(n) >= 0
            assert my_abs(n) in (n, -n)
            assert isinstance(my_abs(n), int)
        """, """
        def my_abs(n):
            return -n if n < 0 else n
        """, """
        def my_abs(n):
            return (n ** 2) ** 0.5
        """),
    S("gcd_properties", """
        from hypothesis import given, strategies as st

        @given(st.integers(1, 10**6), st.integers(1, 10**6))
        def test_gcd_divides(a, b):
            g = gcd(a, b)
            assert a % g == 0 and b % g == 0

        @given(st.integers(1, 1000))
        def test_gcd_self(a):
            assert gcd(a, a) == a
        """, """
        def gcd(a, b):
            while b:
                a, b = b, a % b
            return a
        """, """
        def gcd(a, b):
            return min(a, b)
        """),
    S("clamp_bounds", """
        from hypothesis import given, assume, strategies as st

        @given(st.integers(), st.integers(), st.integers())
        def test_within_bounds(x, lo, hi):
            assume(lo <= hi)
            assert lo <= clamp(x, lo, hi) <= hi
        """, """
        def clamp(x, lo, hi):
            return max(lo, min(x, hi))
        """, """
        def clamp(x, lo, hi):
            return max(lo, min(x, hi + 1))
        """),
    S("dedupe_keeps_order", """
        from hypothesis import given, strategies as st

        @given(st.lists(st.integers(0, 5)))
        def test_dedupe(xs):
            out = dedupe(xs)
            assert len(out) == len(set(xs))
            assert out == sorted(set(xs), key=xs.index)
        """, """
        def dedupe(xs):
            return list(dict.fromkeys(xs))
        """, """
        def dedupe(xs):
            return sorted(set(xs))
        """),
    S("split_join_roundtrip", """
        from hypothesis import given, strategies as st

        @given(st.lists(st.text(alphabet="abc", min_size=1)))
        def test_join_split(parts):
            assert split_csv(join_csv(parts)) == parts
        """, """
        def join_csv(parts):
            return ",".join(parts)

        def split_csv(text):
            return text.split(",") if text else []
        """, """
        def join_csv(parts):
            return ",".join(parts)

        def split_csv(text):
            return text.split(",")
        """),
    S("max_is_member", """
        from hypothesis import given, strategies as st

        @given(st.lists(st.integers(), min_size=1))
        def test_maximum(xs):
            m = maximum(xs)
            assert m in xs
            assert all(x <= m for x in xs)
        """, """
        def maximum(xs):
            best = xs[0]
            for x in xs[1:]:
                if x > best:
                    best = x
            return best
        """, """
        def maximum(xs):
            best = 0
            for x in xs:
                if x > best:
                    best = x
            return best
        """),
    S("binary_search_finds", """
        from hypothesis import given, strategies as st

        @given(st.lists(st.integers(), min_size=1, unique=True), st.data())
        def test_finds_present(xs, data):
            xs = sorted(xs)
            target = data.draw(st.sampled_from(xs))
            assert xs[bsearch(xs, target)] == target
        """, """
        def bsearch(xs, target):
            lo, hi = 0, len(xs) - 1
            while lo <= hi:
                mid = (lo + hi) // 2
                if xs[mid] == target:
                    return mid
                if xs[mid] < target:
                    lo = mid + 1
                else:
                    hi = mid - 1
            return -1
        """, """
        def bsearch(xs, target):
            lo, hi = 0, len(xs) - 1
            while lo < hi:
                mid = (lo + hi) // 2
                if xs[mid] == target:
                    return mid
                if xs[mid] < target:
                    lo = mid + 1
                else:
                    hi = mid - 1
            return -1
        """),
    S("fraction_normalized", """
        from math import gcd
        from hypothesis import given, strategies as st

        @given(st.integers(-100, 100), st.integers(1, 100))
        def test_lowest_terms(n, d):
            a, b = reduce_fraction(n, d)
            assert gcd(a, b) == 1
            assert a * d == n * b
        """, """
        from math import gcd

        def reduce_fraction(n, d):
            g = gcd(n, d)
            return n // g, d // g
        """, """
        from math import gcd

        def reduce_fraction(n, d):
            if n < 0:
                return n, d
            g = gcd(n, d)
            return n // g, d // g
        """),
    S("dict_merge_properties", """
        from hypothesis import given, strategies as st

        dicts = st.dictionaries(st.text(max_size=3), st.integers())

        @given(dicts, dicts)
        def test_merge_right_wins(a, b):
            merged = merge(a, b)
            assert set(merged) == set(a) | set(b)
            assert all(merged[k] == v for k, v in b.items())
        """, """
        def merge(a, b):
            return {**a, **b}
        """, """
        def merge(a, b):
            return {**b, **a}
        """),
    S("stateful_like_stack", """
        from hypothesis import given, strategies as st

        @given(st.lists(st.integers()))
        def test_push_then_pop_all(xs):
            s = Stack()
            for x in xs:
                s.push(x)
            assert [s.pop() for _ in xs] == xs[::-1]
        """, """
        class Stack:
            def __init__(self):
                self.items = []

            def push(self, x):
                self.items.append(x)

            def pop(self):
                return self.items.pop()
        """, """
        class Stack:
            def __init__(self):
                self.items = []

            def push(self, x):
                if x not in self.items:
                    self.items.append(x)

            def pop(self):
                return self.items.pop()
        """),
    S("float_mean_bounds", """
        from hypothesis import given, strategies as st

        @given(st.lists(st.floats(-1e6, 1e6), min_size=1))
        def test_mean_between_min_max(xs):
            m = mean(xs)
            assert min(xs) - 1e-6 <= m <= max(xs) + 1e-6
        """, """
        def mean(xs):
            return sum(xs) / len(xs)
        """, """
        def mean(xs):
            return sum(xs) / (len(xs) - 1) if len(xs) > 1 else xs[0]
        """),
    S("hypothesis_with_settings_example", """
        from hypothesis import example, given, settings, strategies as st

        @settings(max_examples=50)
        @given(st.integers(0, 10**4))
        @example(0)
        def test_digit_sum(n):
            assert digit_sum(n) == sum(int(c) for c in str(n))
        """, """
        def digit_sum(n):
            total = 0
            while n:
                total += n % 10
                n //= 10
            return total
        """, """
        def digit_sum(n):
            total = 0
            while n > 9:
                total += n % 10
                n //= 10
            return total
        """),
    S("composite_strategy", """
        from hypothesis import given, strategies as st

        @st.composite
        def intervals(draw):
            a = draw(st.integers(0, 100))
            b = draw(st.integers(a, 100))
            return (a, b)

        @given(st.lists(intervals()))
        def test_merged_disjoint(xs):
            out = merge_intervals(xs)
            assert all(p[1] < q[0] for p, q in zip(out, out[1:]))
        """, """
        def merge_intervals(intervals):
            out = []
            for a, b in sorted(intervals):
                if out and a <= out[-1][1]:
                    out[-1] = (out[-1][0], max(out[-1][1], b))
                else:
                    out.append((a, b))
            return out
        """, """
        def merge_intervals(intervals):
            out = []
            for a, b in sorted(intervals):
                if out and a < out[-1][1]:
                    out[-1] = (out[-1][0], max(out[-1][1], b))
                else:
                    out.append((a, b))
            return out
        """),
    S("given_in_test_class", """
        from hypothesis import given, strategies as st

        class TestCaesar:
            @given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz"), st.integers(0, 25))
            def test_roundtrip(self, text, k):
                assert caesar(caesar(text, k), -k) == text
        """, """
        def caesar(text, k):
            return "".join(chr((ord(c) - 97 + k) % 26 + 97) for c in text)
        """, """
        def caesar(text, k):
            return "".join(chr((ord(c) - 97 + k) % 25 + 97) for c in text)
        """),
    S("idempotent_normalize", """
        from hypothesis import given, strategies as st

        @given(st.text(alphabet=" ab"))
        def test_idempotent(s):
            once = normalize_spaces(s)
            assert normalize_spaces(once) == once
            assert "  " not in once
        """, """
        import re

        def normalize_spaces(s):
            return re.sub(r" +", " ", s)
        """, """
        def normalize_spaces(s):
            return s.replace("  ", " ")
        """),
    S("sum_of_parts", """
        from hypothesis import given, strategies as st

        @given(st.integers(0, 10**6), st.integers(1, 20))
        def test_split_evenly(total, parts):
            out = split_evenly(total, parts)
            assert sum(out) == total
            assert max(out) - min(out) <= 1
            assert len(out) == parts
        """, """
        def split_evenly(total, parts):
            q, r = divmod(total, parts)
            return [q + 1] * r + [q] * (parts - r)
        """, """
        def split_evenly(total, parts):
            q = total // parts
            return [q] * (parts - 1) + [total - q * (parts - 1)]
        """),
    S("bytes_roundtrip_base64", """
        from hypothesis import given, strategies as st

        @given(st.binary())
        def test_b64_roundtrip(data):
            assert from_b64(to_b64(data)) == data
            assert isinstance(to_b64(data), str)
        """, """
        import base64

        def to_b64(data):
            return base64.b64encode(data).decode("ascii")

        def from_b64(text):
            return base64.b64decode(text)
        """, """
        import base64

        def to_b64(data):
            return base64.b64encode(data).decode("ascii").rstrip("=")

        def from_b64(text):
            return base64.b64decode(text + "=")
        """),
]
