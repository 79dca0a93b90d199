"""Plain algorithmic functions on builtin values: the control family (nothing but ints, strs,
lists and dicts crosses)."""

from functools import partial

from tests.fidelity.shapes import shape

S = partial(shape, "algorithms")

SHAPES = [
    S("two_sum", """
        def test_two_sum():
            assert two_sum([2, 7, 11, 15], 9) == [0, 1]

        def test_none():
            assert two_sum([1, 2], 7) is None
            assert two_sum([3, 4], 6) is None
        """, """
        def two_sum(nums, target):
            seen = {}
            for i, n in enumerate(nums):
                if target - n in seen:
                    return [seen[target - n], i]
                seen[n] = i
            return None
        """, """
        def two_sum(nums, target):
            seen = {}
            for i, n in enumerate(nums):
                seen[n] = i
                if target - n in seen:
                    return [seen[target - n], i]
            return None
        """),
    S("fizzbuzz", """
        def test_fizzbuzz_15():
            assert fizzbuzz(15)[-1] == "FizzBuzz"
            assert fizzbuzz(5) == ["1", "2", "Fizz", "4", "Buzz"]
        """, """
        def fizzbuzz(n):
            out = []
            for i in range(1, n + 1):
                word = ("Fizz" if i % 3 == 0 else "") + ("Buzz" if i % 5 == 0 else "")
                out.append(word or str(i))
            return out
        """, """
        def fizzbuzz(n):
            out = []
            for i in range(1, n + 1):
                if i % 3 == 0:
                    out.append("Fizz")
                elif i % 5 == 0:
                    out.append("Buzz")
                else:
                    out.append(str(i))
            return out
        """),
    S("binary_search", """
        def test_found():
            assert binary_search([1, 3, 5, 7, 9], 7) == 3

        def test_missing():
            assert binary_search([1, 3, 5], 4) == -1

        def test_last():
            assert binary_search([1, 3, 5], 5) == 2
        """, """
        def binary_search(xs, target):
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
        def binary_search(xs, target):
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
    S("balanced_brackets", """
        import pytest

        @pytest.mark.parametrize("text,ok", [("()[]{}", True), ("([)]", False), ("((", False), ("", True)])
        def test_balanced(text, ok):
            assert is_balanced(text) == ok
        """, """
        def is_balanced(text):
            pairs = {")": "(", "]": "[", "}": "{"}
            stack = []
            for c in text:
                if c in "([{":
                    stack.append(c)
                elif c in pairs:
                    if not stack or stack.pop() != pairs[c]:
                        return False
            return not stack
        """, """
        def is_balanced(text):
            return all(text.count(o) == text.count(c) for o, c in ["()", "[]", "{}"])
        """),
    S("word_frequency_dict", """
        def test_frequencies():
            assert word_freq("a b a") == {"a": 2, "b": 1}

        def test_case_insensitive():
            assert word_freq("The the") == {"the": 2}
        """, """
        def word_freq(text):
            counts = {}
            for w in text.lower().split():
                counts[w] = counts.get(w, 0) + 1
            return counts
        """, """
        def word_freq(text):
            counts = {}
            for w in text.split():
                counts[w] = counts.get(w, 0) + 1
            return counts
        """),
    S("flatten_list", """
        def test_flatten():
            assert flatten([[1, 2], [3], []]) == [1, 2, 3]
        """, """
        def flatten(rows):
            return [x for row in rows for x in row]
        """, """
        def flatten(rows):
            return [row[0] for row in rows if row]
        """),
    S("matrix_transpose", """
        def test_transpose():
            assert transpose([[1, 2, 3], [4, 5, 6]]) == [[1, 4], [2, 5], [3, 6]]
        """, """
        def transpose(m):
            return [list(col) for col in zip(*m)]
        """, """
        def transpose(m):
            return [list(row) for row in zip(m)]
        """),
    S("roman_to_int", """
        def test_simple():
            assert roman_to_int("III") == 3

        def test_subtractive():
            assert roman_to_int("MCMXCIV") == 1994
        """, """
        def roman_to_int(s):
            values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
            total = 0
            for a, b in zip(s, s[1:] + " "):
                v = values[a]
                total += -v if b != " " and values[b] > v else v
            return total
        """, """
        def roman_to_int(s):
            values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
            return sum(values[c] for c in s)
        """),
    S("longest_common_prefix", """
        def test_prefix():
            assert common_prefix(["flower", "flow", "flight"]) == "fl"
            assert common_prefix(["abcd", "abxd"]) == "ab"

        def test_none():
            assert common_prefix(["dog", "car"]) == ""
        """, """
        import os

        def common_prefix(words):
            return os.path.commonprefix(words)
        """, """
        def common_prefix(words):
            first = words[0]
            return "".join(c for i, c in enumerate(first) if all(len(w) > i and w[i] == c for w in words))
        """),
    S("merge_sorted_lists", """
        def test_merge():
            assert merge_sorted([1, 4, 6], [2, 3, 7, 8]) == [1, 2, 3, 4, 6, 7, 8]
        """, """
        def merge_sorted(a, b):
            out, i, j = [], 0, 0
            while i < len(a) and j < len(b):
                if a[i] <= b[j]:
                    out.append(a[i]); i += 1
                else:
                    out.append(b[j]); j += 1
            return out + a[i:] + b[j:]
        """, """
        def merge_sorted(a, b):
            out, i, j = [], 0, 0
            while i < len(a) and j < len(b):
                if a[i] <= b[j]:
                    out.append(a[i]); i += 1
                else:
                    out.append(b[j]); j += 1
            return out + a[i:]
        """),
    S("fibonacci_memo", """
        def test_fib_small():
            assert [fib(n) for n in range(7)] == [0, 1, 1, 2, 3, 5, 8]

        def test_fib_large():
            assert fib(90) == 2880067194370816120
        """, """
        from functools import lru_cache

        @lru_cache(maxsize=None)
        def fib(n):
            return n if n < 2 else fib(n - 1) + fib(n - 2)
        """, """
        def fib(n):
            phi = (1 + 5 ** 0.5) / 2
            return round(phi ** n / 5 ** 0.5)
        """),
    S("caesar_cipher", """
        def test_shift():
            assert caesar("abc xyz", 3) == "def abc"

        def test_upper_kept():
            assert caesar("Hi!", 1) == "Ij!"
        """, """
        def caesar(text, k):
            out = []
            for c in text:
                if c.isalpha():
                    base = ord("A") if c.isupper() else ord("a")
                    out.append(chr((ord(c) - base + k) % 26 + base))
                else:
                    out.append(c)
            return "".join(out)
        """, """
        def caesar(text, k):
            out = []
            for c in text:
                if c.isalpha():
                    out.append(chr((ord(c) - ord("a") + k) % 26 + ord("a")))
                else:
                    out.append(c)
            return "".join(out)
        """),
    S("count_vowels", """
        def test_vowels():
            assert count_vowels("Programming") == 3
            assert count_vowels("AEIOU") == 5
        """, """
        def count_vowels(text):
            return sum(c in "aeiou" for c in text.lower())
        """, """
        def count_vowels(text):
            return sum(c in "aeiou" for c in text)
        """),
    S("rotate_list", """
        def test_rotate():
            assert rotate([1, 2, 3, 4, 5], 2) == [4, 5, 1, 2, 3]

        def test_rotate_more_than_len():
            assert rotate([1, 2, 3], 4) == [3, 1, 2]
        """, """
        def rotate(xs, k):
            if not xs:
                return xs
            k %= len(xs)
            return xs[-k:] + xs[:-k] if k else list(xs)
        """, """
        def rotate(xs, k):
            return xs[-k:] + xs[:-k]
        """),
    S("anagram_groups", """
        def test_groups():
            groups = group_anagrams(["eat", "tea", "tan", "ate", "nat", "bat"])
            assert sorted(map(sorted, groups)) == [["ate", "eat", "tea"], ["bat"], ["nat", "tan"]]
        """, """
        def group_anagrams(words):
            groups = {}
            for w in words:
                groups.setdefault("".join(sorted(w)), []).append(w)
            return list(groups.values())
        """, """
        def group_anagrams(words):
            groups = {}
            for w in words:
                groups.setdefault(len(w), []).append(w)
            return list(groups.values())
        """),
    S("max_subarray", """
        def test_kadane():
            assert max_subarray([-2, 1, -3, 4, -1, 2, 1, -5, 4]) == 6

        def test_all_negative():
            assert max_subarray([-3, -1, -2]) == -1
        """, """
        def max_subarray(xs):
            best = cur = xs[0]
            for x in xs[1:]:
                cur = max(x, cur + x)
                best = max(best, cur)
            return best
        """, """
        def max_subarray(xs):
            best = cur = 0
            for x in xs:
                cur = max(0, cur + x)
                best = max(best, cur)
            return best
        """),
    S("prime_sieve", """
        def test_primes_up_to_30():
            assert sieve(30) == [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]
            assert sieve(29)[-1] == 29

        def test_small():
            assert sieve(1) == []
        """, """
        def sieve(n):
            if n < 2:
                return []
            is_p = [True] * (n + 1)
            is_p[0] = is_p[1] = False
            for i in range(2, int(n ** 0.5) + 1):
                if is_p[i]:
                    is_p[i * i::i] = [False] * len(is_p[i * i::i])
            return [i for i, p in enumerate(is_p) if p]
        """, """
        def sieve(n):
            if n < 2:
                return []
            is_p = [True] * n
            is_p[0] = is_p[1] = False
            for i in range(2, int(n ** 0.5) + 1):
                if is_p[i]:
                    is_p[i * i::i] = [False] * len(is_p[i * i::i])
            return [i for i, p in enumerate(is_p) if p]
        """),
    S("run_length_encode", """
        def test_encode():
            assert rle("aaabccdddd") == "a3b1c2d4"
            assert rle("abba") == "a1b2a1"

        def test_empty():
            assert rle("") == ""
        """, """
        from itertools import groupby

        def rle(s):
            return "".join(f"{c}{len(list(g))}" for c, g in groupby(s))
        """, """
        def rle(s):
            return "".join(f"{c}{s.count(c)}" for c in dict.fromkeys(s))
        """),
    S("dict_invert_multi", """
        def test_invert_multi():
            assert invert_multi({"a": 1, "b": 1, "c": 2}) == {1: ["a", "b"], 2: ["c"]}
        """, """
        def invert_multi(d):
            out = {}
            for k, v in d.items():
                out.setdefault(v, []).append(k)
            return out
        """, """
        def invert_multi(d):
            return {v: [k] for k, v in d.items()}
        """),
    S("levenshtein", """
        def test_distance():
            assert edit_distance("kitten", "sitting") == 3
            assert edit_distance("abc", "bc") == 1

        def test_empty():
            assert edit_distance("", "abc") == 3
        """, """
        def edit_distance(a, b):
            prev = list(range(len(b) + 1))
            for i, ca in enumerate(a, 1):
                cur = [i]
                for j, cb in enumerate(b, 1):
                    cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
                prev = cur
            return prev[-1]
        """, """
        def edit_distance(a, b):
            return sum(x != y for x, y in zip(a, b)) + abs(len(a) - len(b))
        """),
]
