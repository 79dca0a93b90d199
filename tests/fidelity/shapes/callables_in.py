"""What the tests pass in to the candidate: lambdas, builtins, their own functions, methods,
partials, iterators, their own classes and instances."""

from functools import partial

from tests.fidelity.shapes import shape

S = partial(shape, "callables_in")

SHAPES = [
    S("lambda_predicate", """
        def test_filter_lambda():
            assert keep([1, 2, 3, 4], lambda n: n % 2 == 0) == [2, 4]

        def test_keeps_order():
            assert keep("banana", lambda c: c != "a") == ["b", "n", "n"]
        """, """
        def keep(items, predicate):
            return [item for item in items if predicate(item)]
        """, """
        def keep(items, predicate):
            return [item for item in items if not predicate(item)]
        """),
    S("key_len", """
        def test_longest():
            assert best(["a", "abc", "ab"], key=len) == "abc"

        def test_key_abs():
            assert best([-7, 3, 5], key=abs) == -7
        """, """
        def best(items, key):
            return max(items, key=key)
        """, """
        def best(items, key):
            return max(items)
        """),
    S("sort_by_key_builtin", """
        def test_sort_case_insensitive():
            assert sort_by(["b", "A", "c"], str.lower) == ["A", "b", "c"]

        def test_sort_by_itemgetter():
            from operator import itemgetter
            rows = [("x", 3), ("y", 1)]
            assert sort_by(rows, itemgetter(1)) == [("y", 1), ("x", 3)]
        """, """
        def sort_by(items, key):
            return sorted(items, key=key)
        """, """
        def sort_by(items, key):
            return sorted(items, key=key, reverse=True)
        """),
    S("decorator_applied_in_test", """
        def test_memoize_counts_calls():
            calls = []

            @memoize
            def square(n):
                calls.append(n)
                return n * n

            assert square(4) == 16
            assert square(4) == 16
            assert calls == [4]

        def test_keeps_name():
            @memoize
            def cube(n):
                return n ** 3

            assert cube.__name__ == "cube"
        """, """
        import functools

        def memoize(func):
            cache = {}

            @functools.wraps(func)
            def wrapper(*args):
                if args not in cache:
                    cache[args] = func(*args)
                return cache[args]
            return wrapper
        """, """
        def memoize(func):
            cache = {}

            def wrapper(*args):
                if args not in cache:
                    cache[args] = func(*args)
                return cache[args]
            return wrapper
        """),
    S("retry_decorator_factory", """
        def test_retries_then_succeeds():
            attempts = []

            @retry(times=3)
            def flaky():
                attempts.append(1)
                if len(attempts) < 3:
                    raise ConnectionError("down")
                return "ok"

            assert flaky() == "ok"
            assert len(attempts) == 3
        """, """
        import functools

        def retry(times):
            def decorate(func):
                @functools.wraps(func)
                def wrapper(*args, **kwargs):
                    for attempt in range(times):
                        try:
                            return func(*args, **kwargs)
                        except Exception:
                            if attempt == times - 1:
                                raise
                return wrapper
            return decorate
        """, """
        import functools

        def retry(times):
            def decorate(func):
                @functools.wraps(func)
                def wrapper(*args, **kwargs):
                    for attempt in range(times - 1):
                        try:
                            return func(*args, **kwargs)
                        except Exception:
                            pass
                    return None
                return wrapper
            return decorate
        """),
    S("callback_called_with", """
        def test_callbacks_receive_progress():
            seen = []
            process([10, 20, 30], on_progress=seen.append)
            assert seen == [1, 2, 3]

        def test_result():
            assert process([1, 2], on_progress=lambda n: None) == 3
        """, """
        def process(items, on_progress):
            total = 0
            for done, item in enumerate(items, 1):
                total += item
                on_progress(done)
            return total
        """, """
        def process(items, on_progress):
            total = 0
            for done, item in enumerate(items):
                total += item
                on_progress(done)
            return total
        """),
    S("bound_method_passed", """
        class Collector:
            def __init__(self):
                self.items = []

            def add(self, item):
                self.items.append(item)

        def test_bound_method_as_sink():
            c = Collector()
            emit_words("a b c", c.add)
            assert c.items == ["a", "b", "c"]
        """, """
        def emit_words(text, sink):
            for word in text.split():
                sink(word)
        """, """
        def emit_words(text, sink):
            for word in reversed(text.split()):
                sink(word)
        """),
    S("partial_passed", """
        from functools import partial

        def test_apply_partial():
            add_ten = partial(lambda a, b: a + b, 10)
            assert apply_all(add_ten, [1, 2]) == [11, 12]

        def test_apply_int_base():
            assert apply_all(partial(int, base=2), ["101", "11"]) == [5, 3]
        """, """
        def apply_all(func, items):
            return [func(item) for item in items]
        """, """
        def apply_all(func, items):
            return [func(item) for item in items[:1]]
        """),
    S("generator_expression_in", """
        def test_total_from_genexp():
            assert running_total(x * x for x in range(4)) == [0, 1, 5, 14]

        def test_from_iterator():
            assert running_total(iter([5, 5])) == [5, 10]
        """, """
        def running_total(numbers):
            out, total = [], 0
            for n in numbers:
                total += n
                out.append(total)
            return out
        """, """
        def running_total(numbers):
            numbers = list(numbers)
            return [sum(numbers[:i]) for i in range(len(numbers))]
        """),
    S("generator_function_in", """
        def naturals():
            n = 0
            while True:
                yield n
                n += 1

        def test_first_n_of_infinite():
            assert first_n(naturals(), 4) == [0, 1, 2, 3]
        """, """
        from itertools import islice

        def first_n(iterable, n):
            return list(islice(iterable, n))
        """, """
        from itertools import islice

        def first_n(iterable, n):
            return list(islice(iterable, 1, n + 1))
        """),
    S("tests_dataclass_instance_in", """
        from dataclasses import dataclass

        @dataclass
        class Employee:
            name: str
            salary: int

        def test_total_payroll():
            staff = [Employee("a", 100), Employee("b", 250)]
            assert payroll(staff) == 350

        def test_highest_paid():
            staff = [Employee("a", 100), Employee("b", 250)]
            assert highest_paid(staff).name == "b"
        """, """
        def payroll(staff):
            return sum(e.salary for e in staff)

        def highest_paid(staff):
            return max(staff, key=lambda e: e.salary)
        """, """
        def payroll(staff):
            return sum(e.salary for e in staff)

        def highest_paid(staff):
            return max(staff, key=lambda e: e.name) if len(staff) > 2 else staff[0]
        """),
    S("tests_class_passed_as_factory", """
        class Box:
            def __init__(self, value):
                self.value = value

        def test_wraps_each():
            boxes = wrap_all([1, 2], Box)
            assert [b.value for b in boxes] == [1, 2]
            assert all(isinstance(b, Box) for b in boxes)
        """, """
        def wrap_all(values, factory):
            return [factory(v) for v in values]
        """, """
        def wrap_all(values, factory):
            return [factory(values) for _ in values]
        """),
    S("tests_object_with_protocol_in", """
        class Fake:
            def __init__(self, n):
                self.n = n

            def __lt__(self, other):
                return self.n < other.n

            def __eq__(self, other):
                return self.n == other.n

        def test_median_of_fakes():
            assert median3(Fake(3), Fake(1), Fake(2)) == Fake(2)
        """, """
        def median3(a, b, c):
            return sorted([a, b, c])[1]
        """, """
        def median3(a, b, c):
            return sorted([a, b, c])[-1]
        """),
    S("compose_functions", """
        def test_compose():
            inc = lambda x: x + 1
            dbl = lambda x: x * 2
            assert compose(inc, dbl)(3) == 7

        def test_compose_many():
            assert compose(str, abs, int)("-5") == "5"
        """, """
        from functools import reduce

        def compose(*funcs):
            return lambda x: reduce(lambda acc, f: f(acc), reversed(funcs), x)
        """, """
        from functools import reduce

        def compose(*funcs):
            return lambda x: reduce(lambda acc, f: f(acc), funcs, x)
        """),
    S("map_with_builtin", """
        def test_map_builtin():
            assert transform(["1", "2"], int) == [1, 2]

        def test_map_method_descriptor():
            assert transform(["a", "b"], str.upper) == ["A", "B"]
        """, """
        def transform(items, func):
            return list(map(func, items))
        """, """
        def transform(items, func):
            return list(map(str, items))
        """),
    S("event_emitter_handlers", """
        def test_handlers_called_in_order():
            log = []
            bus = EventBus()
            bus.on("save", lambda p: log.append(("first", p)))
            bus.on("save", lambda p: log.append(("second", p)))
            bus.emit("save", 7)
            assert log == [("first", 7), ("second", 7)]

        def test_other_event_ignored():
            log = []
            bus = EventBus()
            bus.on("a", log.append)
            bus.emit("b", 1)
            assert log == []
        """, """
        from collections import defaultdict

        class EventBus:
            def __init__(self):
                self.handlers = defaultdict(list)

            def on(self, name, handler):
                self.handlers[name].append(handler)

            def emit(self, name, payload):
                for handler in self.handlers[name]:
                    handler(payload)
        """, """
        class EventBus:
            def __init__(self):
                self.handlers = {}

            def on(self, name, handler):
                self.handlers[name] = handler

            def emit(self, name, payload):
                if name in self.handlers:
                    self.handlers[name](payload)
        """),
    S("reduce_with_operator", """
        import operator

        def test_fold_mul():
            assert fold([2, 3, 4], operator.mul, 1) == 24

        def test_fold_empty():
            assert fold([], operator.add, 0) == 0
        """, """
        def fold(items, op, start):
            acc = start
            for item in items:
                acc = op(acc, item)
            return acc
        """, """
        def fold(items, op, start):
            acc = items[0] if items else start
            for item in items:
                acc = op(acc, item)
            return acc
        """),
    S("nested_function_closure_in", """
        def make_multiplier(k):
            def multiply(x):
                return x * k
            return multiply

        def test_closure_applied():
            assert apply_twice(make_multiplier(3), 2) == 18
        """, """
        def apply_twice(func, x):
            return func(func(x))
        """, """
        def apply_twice(func, x):
            return func(x) * 2
        """),
    S("kwargs_callable", """
        def test_call_with_kwargs():
            def greet(name, greeting="hi"):
                return f"{greeting} {name}"

            assert call_with(greet, name="ann", greeting="yo") == "yo ann"
        """, """
        def call_with(func, **kwargs):
            return func(**kwargs)
        """, """
        def call_with(func, **kwargs):
            return func(kwargs["name"])
        """),
    S("dict_of_handlers", """
        def test_dispatch():
            handlers = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b}
            assert dispatch(handlers, "sub", 5, 3) == 2

        def test_unknown():
            assert dispatch({}, "x", 1, 2) is None
        """, """
        def dispatch(handlers, name, *args):
            handler = handlers.get(name)
            return handler(*args) if handler else None
        """, """
        def dispatch(handlers, name, *args):
            handler = handlers.get(name)
            return handler(*reversed(args)) if handler else None
        """),
]
