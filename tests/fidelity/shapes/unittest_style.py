"""unittest.TestCase suites, with and without the Test prefix in the class name."""

from functools import partial

from tests.fidelity.shapes import shape

S = partial(shape, "unittest_style")

SHAPES = [
    S("bank_account_test_suffix", """
        import unittest

        class BankAccountTest(unittest.TestCase):
            def setUp(self):
                self.account = BankAccount(100)

            def test_deposit(self):
                self.account.deposit(50)
                self.assertEqual(self.account.balance, 150)

            def test_overdraw(self):
                with self.assertRaises(ValueError):
                    self.account.withdraw(500)
        """, """
        class BankAccount:
            def __init__(self, balance):
                self.balance = balance

            def deposit(self, amount):
                self.balance += amount

            def withdraw(self, amount):
                if amount > self.balance:
                    raise ValueError("insufficient funds")
                self.balance -= amount
        """, """
        class BankAccount:
            def __init__(self, balance):
                self.balance = balance

            def deposit(self, amount):
                self.balance += amount

            def withdraw(self, amount):
                self.balance -= amount
        """),
    S("test_prefix_class", """
        import unittest

        class TestStack(unittest.TestCase):
            def test_lifo(self):
                s = Stack()
                s.push(1)
                s.push(2)
                self.assertEqual(s.pop(), 2)

            def test_empty(self):
                self.assertTrue(Stack().is_empty())
        """, """
        class Stack:
            def __init__(self):
                self.items = []

            def push(self, x):
                self.items.append(x)

            def pop(self):
                return self.items.pop()

            def is_empty(self):
                return not self.items
        """, """
        class Stack:
            def __init__(self):
                self.items = []

            def push(self, x):
                self.items.insert(0, x)

            def pop(self):
                return self.items.pop()

            def is_empty(self):
                return not self.items
        """),
    S("plain_name_class", """
        import unittest

        class Calculations(unittest.TestCase):
            def test_add(self):
                self.assertEqual(add(2, 3), 5)

            def test_add_negative(self):
                self.assertEqual(add(-2, -3), -5)
        """, """
        def add(a, b):
            return a + b
        """, """
        def add(a, b):
            return abs(a) + abs(b)
        """),
    S("setup_teardown_files", """
        import os
        import shutil
        import tempfile
        import unittest

        class WordFileTests(unittest.TestCase):
            def setUp(self):
                self.dir = tempfile.mkdtemp()
                self.path = os.path.join(self.dir, "words.txt")
                with open(self.path, "w") as f:
                    f.write("one two\\nthree\\n")

            def tearDown(self):
                shutil.rmtree(self.dir)

            def test_count_words(self):
                self.assertEqual(count_words(self.path), 3)
        """, """
        def count_words(path):
            with open(path) as f:
                return len(f.read().split())
        """, """
        def count_words(path):
            with open(path) as f:
                return len(f.readlines())
        """),
    S("assert_raises_context", """
        import unittest

        class ParserTest(unittest.TestCase):
            def test_bad_input(self):
                with self.assertRaises(ValueError) as ctx:
                    parse_pair("a")
                self.assertIn("key=value", str(ctx.exception))

            def test_good(self):
                self.assertEqual(parse_pair("a=b"), ("a", "b"))
        """, """
        def parse_pair(text):
            if "=" not in text:
                raise ValueError(f"expected key=value, got {text!r}")
            key, value = text.split("=", 1)
            return key, value
        """, """
        def parse_pair(text):
            key, value = text.split("=", 1)
            return key, value
        """),
    S("assert_raises_regex", """
        import unittest

        class AgeTest(unittest.TestCase):
            def test_negative(self):
                self.assertRaisesRegex(ValueError, r"^age -1 ", check_age, -1)
        """, """
        def check_age(age):
            if age < 0:
                raise ValueError(f"age {age} is negative")
            return age
        """, """
        def check_age(age):
            if age < 0:
                raise ValueError(f"negative age: {age}")
            return age
        """),
    S("subtest_loop", """
        import unittest

        class PrimeTest(unittest.TestCase):
            def test_primes(self):
                for n, expected in [(2, True), (9, False), (13, True), (1, False)]:
                    with self.subTest(n=n):
                        self.assertEqual(is_prime(n), expected)
        """, """
        def is_prime(n):
            return n > 1 and all(n % d for d in range(2, int(n ** 0.5) + 1))
        """, """
        def is_prime(n):
            return all(n % d for d in range(2, int(n ** 0.5) + 1))
        """),
    S("assert_almost_equal", """
        import unittest

        class AreaTest(unittest.TestCase):
            def test_circle(self):
                self.assertAlmostEqual(circle_area(1), 3.14159, places=4)

            def test_zero(self):
                self.assertAlmostEqual(circle_area(0), 0.0)
        """, """
        import math

        def circle_area(r):
            return math.pi * r * r
        """, """
        def circle_area(r):
            return 3.14 * r * r
        """),
    S("setup_class_method", """
        import unittest

        class CacheTest(unittest.TestCase):
            @classmethod
            def setUpClass(cls):
                cls.cache = LRUCache(2)

            def test_evicts_oldest(self):
                c = LRUCache(2)
                c.put("a", 1); c.put("b", 2); c.get("a"); c.put("c", 3)
                self.assertIsNone(c.get("b"))
                self.assertEqual(c.get("a"), 1)

            def test_shared_capacity(self):
                self.assertEqual(self.cache.capacity, 2)
        """, """
        from collections import OrderedDict

        class LRUCache:
            def __init__(self, capacity):
                self.capacity = capacity
                self.data = OrderedDict()

            def get(self, key):
                if key not in self.data:
                    return None
                self.data.move_to_end(key)
                return self.data[key]

            def put(self, key, value):
                self.data[key] = value
                self.data.move_to_end(key)
                if len(self.data) > self.capacity:
                    self.data.popitem(last=False)
        """, """
        from collections import OrderedDict

        class LRUCache:
            def __init__(self, capacity):
                self.capacity = capacity
                self.data = OrderedDict()

            def get(self, key):
                return self.data.get(key)

            def put(self, key, value):
                self.data[key] = value
                if len(self.data) > self.capacity:
                    self.data.popitem(last=False)
        """),
    S("assert_count_equal_and_in", """
        import unittest

        class AnagramTest(unittest.TestCase):
            def test_anagrams(self):
                self.assertCountEqual(anagrams("listen", ["enlist", "google", "inlets", "silent"]),
                                      ["silent", "inlets", "enlist"])

            def test_not_self(self):
                self.assertNotIn("listen", anagrams("listen", ["listen", "tinsel"]))
        """, """
        def anagrams(word, candidates):
            key = sorted(word)
            return [c for c in candidates if sorted(c) == key and c != word]
        """, """
        def anagrams(word, candidates):
            key = sorted(word)
            return [c for c in candidates if sorted(c) == key]
        """),
    S("mixed_unittest_and_functions", """
        import unittest

        class SlugTest(unittest.TestCase):
            def test_spaces(self):
                self.assertEqual(slugify("Hello World"), "hello-world")

        def test_punctuation():
            assert slugify("Hi, there!") == "hi-there"
        """, """
        import re

        def slugify(text):
            return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
        """, """
        def slugify(text):
            return text.lower().replace(" ", "-")
        """),
    S("two_testcase_classes", """
        import unittest

        class QueueBasics(unittest.TestCase):
            def test_fifo(self):
                q = Queue()
                q.enqueue(1); q.enqueue(2)
                self.assertEqual(q.dequeue(), 1)

        class QueueSizeTest(unittest.TestCase):
            def test_len(self):
                q = Queue()
                q.enqueue("x")
                self.assertEqual(len(q), 1)
        """, """
        from collections import deque

        class Queue:
            def __init__(self):
                self.items = deque()

            def enqueue(self, x):
                self.items.append(x)

            def dequeue(self):
                return self.items.popleft()

            def __len__(self):
                return len(self.items)
        """, """
        class Queue:
            def __init__(self):
                self.items = []

            def enqueue(self, x):
                self.items.append(x)

            def dequeue(self):
                return self.items.pop()

            def __len__(self):
                return len(self.items)
        """),
    S("assert_true_false_is_none", """
        import unittest

        class LookupTests(unittest.TestCase):
            def test_found(self):
                self.assertTrue(find_index([4, 5], 5) == 1)

            def test_missing(self):
                self.assertIsNone(find_index([4, 5], 9))
        """, """
        def find_index(items, target):
            for i, item in enumerate(items):
                if item == target:
                    return i
            return None
        """, """
        def find_index(items, target):
            for i, item in enumerate(items):
                if item == target:
                    return i
            return -1
        """),
    S("unittest_mock_patch_decorator", """
        import unittest
        from unittest import mock

        class ClockTest(unittest.TestCase):
            @mock.patch("time.strftime", return_value="12:00")
            def test_banner(self, fake):
                self.assertEqual(banner(), "It is 12:00")
                fake.assert_called_once()
        """, """
        import time

        def banner():
            return f"It is {time.strftime('%H:%M')}"
        """, """
        from datetime import datetime

        def banner():
            now = datetime.now()
            return f"It is {now.hour:02d}:{now.minute:02d}"
        """),
    S("assert_dict_and_list_equal", """
        import unittest

        class InvertTest(unittest.TestCase):
            def test_invert(self):
                self.assertDictEqual(invert({"a": 1, "b": 2}), {1: "a", 2: "b"})

            def test_keys(self):
                self.assertListEqual(sorted(invert({"x": 9})), [9])
        """, """
        def invert(d):
            return {v: k for k, v in d.items()}
        """, """
        def invert(d):
            return dict(zip(d, d.values()))
        """),
    S("skip_decorator_unittest", """
        import unittest

        class FeatureTest(unittest.TestCase):
            @unittest.skip("not yet")
            def test_future(self):
                self.fail("should not run")

            def test_now(self):
                self.assertEqual(double(4), 8)
        """, """
        def double(x):
            return 2 * x
        """, """
        def double(x):
            return x ** 2
        """),
    S("expected_failure_unittest", """
        import unittest

        class RoundTest(unittest.TestCase):
            def test_banker(self):
                self.assertEqual(my_round(2.5), 2)

            @unittest.expectedFailure
            def test_half_up_not_supported(self):
                self.assertEqual(my_round(2.5), 3)
        """, """
        def my_round(x):
            return round(x)
        """, """
        import math

        def my_round(x):
            return math.floor(x + 0.5)
        """),
    S("assert_greater_and_sequence", """
        import unittest

        class ScoreTests(unittest.TestCase):
            def test_top_scores_ordered(self):
                top = top_scores([50, 90, 70, 10], 3)
                self.assertEqual(top, [90, 70, 50])
                self.assertGreater(top[0], top[-1])
        """, """
        def top_scores(scores, n):
            return sorted(scores, reverse=True)[:n]
        """, """
        def top_scores(scores, n):
            return sorted(scores)[-n:]
        """),
    S("helper_method_in_testcase", """
        import unittest

        class TriangleTest(unittest.TestCase):
            def check(self, a, b, c, expected):
                self.assertEqual(triangle_kind(a, b, c), expected)

            def test_kinds(self):
                self.check(2, 2, 2, "equilateral")
                self.check(2, 2, 3, "isosceles")
                self.check(3, 4, 5, "scalene")
                self.check(3, 2, 3, "isosceles")
        """, """
        def triangle_kind(a, b, c):
            sides = len({a, b, c})
            return {1: "equilateral", 2: "isosceles", 3: "scalene"}[sides]
        """, """
        def triangle_kind(a, b, c):
            if a == b == c:
                return "equilateral"
            if a == b or b == c:
                return "isosceles"
            return "scalene"
        """),
    S("addcleanup_unittest", """
        import unittest

        class EnvTest(unittest.TestCase):
            def test_override(self):
                settings = {"debug": False}
                restore = override(settings, "debug", True)
                self.addCleanup(restore)
                self.assertTrue(settings["debug"])
                restore()
                self.assertFalse(settings["debug"])
        """, """
        def override(settings, key, value):
            old = settings[key]
            settings[key] = value

            def restore():
                settings[key] = old
            return restore
        """, """
        def override(settings, key, value):
            settings[key] = value

            def restore():
                settings[key] = value
            return restore
        """),
]
