"""The candidate's own classes and their protocols, used by the tests."""

from functools import partial

from tests.fidelity.shapes import shape

S = partial(shape, "own_classes")

SHAPES = [
    S("dataclass_eq", """
        def test_equal_by_value():
            assert parse_item("apple:3") == Item("apple", 3)

        def test_not_equal():
            assert parse_item("pear:1") != Item("pear", 2)
        """, """
        from dataclasses import dataclass

        @dataclass
        class Item:
            name: str
            qty: int

        def parse_item(text):
            name, qty = text.split(":")
            return Item(name, int(qty))
        """, """
        from dataclasses import dataclass

        @dataclass
        class Item:
            name: str
            qty: int

        def parse_item(text):
            name, qty = text.split(":")
            return Item(name, qty)
        """),
    S("dataclass_order", """
        def test_sorted_versions():
            versions = [Version(1, 10), Version(1, 2), Version(0, 9)]
            assert sorted(versions) == [Version(0, 9), Version(1, 2), Version(1, 10)]

        def test_max_version():
            assert max([Version(2, 0), Version(10, 1)]) == Version(10, 1)
        """, """
        from dataclasses import dataclass

        @dataclass(order=True)
        class Version:
            major: int
            minor: int
        """, """
        from dataclasses import dataclass

        @dataclass(order=True)
        class Version:
            major: str
            minor: str

            def __post_init__(self):
                self.major, self.minor = str(self.major), str(self.minor)
        """),
    S("money_add", """
        def test_add():
            assert Money(5) + Money(7) == Money(12)

        def test_sum():
            assert sum([Money(1), Money(2)], Money(0)) == Money(3)
        """, """
        class Money:
            def __init__(self, cents):
                self.cents = cents

            def __add__(self, other):
                return Money(self.cents + other.cents)

            def __eq__(self, other):
                return isinstance(other, Money) and self.cents == other.cents

            def __repr__(self):
                return f"Money({self.cents})"
        """, """
        class Money:
            def __init__(self, cents):
                self.cents = cents

            def __add__(self, other):
                return Money(self.cents + other.cents)

            def __repr__(self):
                return f"Money({self.cents})"
        """),
    S("vector_ops", """
        def test_scale_and_add():
            v = Vector(1, 2) * 3 + Vector(1, 1)
            assert (v.x, v.y) == (4, 7)

        def test_abs():
            assert abs(Vector(3, 4)) == 5.0

        def test_neg():
            assert -Vector(1, -2) == Vector(-1, 2)
        """, """
        import math

        class Vector:
            def __init__(self, x, y):
                self.x, self.y = x, y

            def __add__(self, o):
                return Vector(self.x + o.x, self.y + o.y)

            def __mul__(self, k):
                return Vector(self.x * k, self.y * k)

            def __neg__(self):
                return Vector(-self.x, -self.y)

            def __abs__(self):
                return math.hypot(self.x, self.y)

            def __eq__(self, o):
                return (self.x, self.y) == (o.x, o.y)
        """, """
        import math

        class Vector:
            def __init__(self, x, y):
                self.x, self.y = x, y

            def __add__(self, o):
                return Vector(self.x + o.x, self.y + o.y)

            def __mul__(self, k):
                return Vector(self.x * k, self.y * k)

            def __neg__(self):
                return Vector(-self.x, self.y)

            def __abs__(self):
                return math.hypot(self.x, self.y)

            def __eq__(self, o):
                return (self.x, self.y) == (o.x, o.y)
        """),
    S("container_protocols", """
        def test_len_and_contains():
            bag = Bag(["a", "b", "a"])
            assert len(bag) == 3
            assert "a" in bag
            assert "z" not in bag

        def test_getitem_and_iter():
            bag = Bag(["x", "y"])
            assert bag[1] == "y"
            assert list(bag) == ["x", "y"]
        """, """
        class Bag:
            def __init__(self, items):
                self.items = list(items)

            def __len__(self):
                return len(self.items)

            def __contains__(self, item):
                return item in self.items

            def __getitem__(self, i):
                return self.items[i]

            def __iter__(self):
                return iter(self.items)
        """, """
        class Bag:
            def __init__(self, items):
                self.items = set(items)

            def __len__(self):
                return len(self.items)

            def __contains__(self, item):
                return item in self.items

            def __getitem__(self, i):
                return sorted(self.items)[i]

            def __iter__(self):
                return iter(sorted(self.items))
        """),
    S("context_manager_timer", """
        def test_timer_records_elapsed():
            with Timer() as t:
                sum(range(1000))
            assert t.elapsed >= 0
            assert t.stopped

        def test_timer_exits_on_error():
            t = Timer()
            try:
                with t:
                    raise ValueError("x")
            except ValueError:
                pass
            assert t.stopped
        """, """
        import time

        class Timer:
            def __init__(self):
                self.stopped = False
                self.elapsed = None

            def __enter__(self):
                self.start = time.perf_counter()
                return self

            def __exit__(self, *exc):
                self.elapsed = time.perf_counter() - self.start
                self.stopped = True
                return False
        """, """
        import time

        class Timer:
            def __init__(self):
                self.stopped = False
                self.elapsed = None

            def __enter__(self):
                self.start = time.perf_counter()

            def __exit__(self, *exc):
                self.elapsed = time.perf_counter() - self.start
                self.stopped = True
                return False
        """),
    S("callable_instance", """
        def test_counter_calls():
            c = CallCounter()
            c(); c(); c()
            assert c.count == 3

        def test_returns_count():
            c = CallCounter()
            assert c() == 1
        """, """
        class CallCounter:
            def __init__(self):
                self.count = 0

            def __call__(self):
                self.count += 1
                return self.count
        """, """
        class CallCounter:
            count = 0

            def __call__(self):
                self.count = CallCounter.count + 1
                CallCounter.count = self.count
                return self.count - 1
        """),
    S("property_setter", """
        import pytest

        def test_celsius_to_fahrenheit():
            t = Temperature(100)
            assert t.fahrenheit == 212

        def test_setter_validates():
            t = Temperature(0)
            t.fahrenheit = 32
            assert t.celsius == 0
            with pytest.raises(ValueError):
                t.celsius = -300
        """, """
        class Temperature:
            def __init__(self, celsius):
                self.celsius = celsius

            @property
            def celsius(self):
                return self._c

            @celsius.setter
            def celsius(self, value):
                if value < -273.15:
                    raise ValueError("below absolute zero")
                self._c = value

            @property
            def fahrenheit(self):
                return self._c * 9 / 5 + 32

            @fahrenheit.setter
            def fahrenheit(self, value):
                self.celsius = (value - 32) * 5 / 9
        """, """
        class Temperature:
            def __init__(self, celsius):
                self.celsius = celsius

            @property
            def fahrenheit(self):
                return self.celsius * 9 / 5 + 32

            @fahrenheit.setter
            def fahrenheit(self, value):
                self.celsius = (value - 32) * 5 / 9
        """),
    S("descriptor_positive", """
        import pytest

        def test_descriptor_validates():
            p = Product("pen", 3)
            assert p.price == 3
            with pytest.raises(ValueError):
                p.price = -1

        def test_class_access():
            assert isinstance(Product.__dict__["price"], Positive)
        """, """
        class Positive:
            def __set_name__(self, owner, name):
                self.name = "_" + name

            def __get__(self, obj, objtype=None):
                if obj is None:
                    return self
                return getattr(obj, self.name)

            def __set__(self, obj, value):
                if value < 0:
                    raise ValueError(f"{self.name[1:]} must be positive")
                setattr(obj, self.name, value)

        class Product:
            price = Positive()

            def __init__(self, name, price):
                self.name = name
                self.price = price
        """, """
        class Positive:
            def __set_name__(self, owner, name):
                self.name = "_" + name

            def __get__(self, obj, objtype=None):
                if obj is None:
                    return self
                return getattr(obj, self.name)

            def __set__(self, obj, value):
                setattr(obj, self.name, abs(value))

        class Product:
            price = Positive()

            def __init__(self, name, price):
                self.name = name
                self.price = price
        """),
    S("hash_in_set", """
        def test_dedupe():
            cards = {Card("A", "spades"), Card("A", "spades"), Card("K", "hearts")}
            assert len(cards) == 2

        def test_dict_key():
            scores = {Card("Q", "clubs"): 10}
            assert scores[Card("Q", "clubs")] == 10
        """, """
        from dataclasses import dataclass

        @dataclass(frozen=True)
        class Card:
            rank: str
            suit: str
        """, """
        class Card:
            def __init__(self, rank, suit):
                self.rank, self.suit = rank, suit

            def __eq__(self, other):
                return (self.rank, self.suit) == (other.rank, other.suit)

            def __hash__(self):
                return id(self)
        """),
    S("sorted_by_total_ordering", """
        def test_sort_tasks_by_priority():
            tasks = [Task("b", 2), Task("a", 1), Task("c", 3)]
            assert [t.name for t in sorted(tasks)] == ["a", "b", "c"]

        def test_max_and_compare():
            assert max(Task("x", 5), Task("y", 9)).name == "y"
            assert Task("p", 1) <= Task("q", 1)
        """, """
        from functools import total_ordering

        @total_ordering
        class Task:
            def __init__(self, name, priority):
                self.name, self.priority = name, priority

            def __eq__(self, other):
                return self.priority == other.priority

            def __lt__(self, other):
                return self.priority < other.priority
        """, """
        from functools import total_ordering

        @total_ordering
        class Task:
            def __init__(self, name, priority):
                self.name, self.priority = name, priority

            def __eq__(self, other):
                return self.priority == other.priority

            def __lt__(self, other):
                return self.priority > other.priority
        """),
    S("repr_and_str", """
        def test_repr():
            assert repr(Fraction2(1, 2)) == "Fraction2(1, 2)"

        def test_str():
            assert str(Fraction2(3, 4)) == "3/4"
            assert f"{Fraction2(1, 3)}" == "1/3"
        """, """
        class Fraction2:
            def __init__(self, n, d):
                self.n, self.d = n, d

            def __repr__(self):
                return f"Fraction2({self.n}, {self.d})"

            def __str__(self):
                return f"{self.n}/{self.d}"
        """, """
        class Fraction2:
            def __init__(self, n, d):
                self.n, self.d = n, d

            def __str__(self):
                return f"{self.n}/{self.d}"
        """),
    S("classmethod_factory", """
        def test_from_string():
            c = Color.from_hex("#ff8000")
            assert (c.r, c.g, c.b) == (255, 128, 0)

        def test_static_clamp():
            assert Color.clamp(300) == 255
            assert Color.clamp(-5) == 0
        """, """
        class Color:
            def __init__(self, r, g, b):
                self.r, self.g, self.b = r, g, b

            @classmethod
            def from_hex(cls, text):
                text = text.lstrip("#")
                return cls(*(int(text[i:i + 2], 16) for i in (0, 2, 4)))

            @staticmethod
            def clamp(value):
                return max(0, min(255, value))
        """, """
        class Color:
            def __init__(self, r, g, b):
                self.r, self.g, self.b = r, g, b

            @classmethod
            def from_hex(cls, text):
                text = text.lstrip("#")
                return cls(*(int(text[i:i + 2], 16) for i in (0, 2, 4)))

            @staticmethod
            def clamp(value):
                return min(0, max(255, value))
        """),
    S("inheritance_isinstance", """
        def test_shapes_area():
            shapes = make_shapes()
            assert [round(s.area(), 2) for s in shapes] == [4, 3.14]

        def test_isinstance():
            assert all(isinstance(s, Shape) for s in make_shapes())
            assert issubclass(Square, Shape)
        """, """
        import math

        class Shape:
            def area(self):
                raise NotImplementedError

        class Square(Shape):
            def __init__(self, side):
                self.side = side

            def area(self):
                return self.side ** 2

        class Circle(Shape):
            def __init__(self, r):
                self.r = r

            def area(self):
                return math.pi * self.r ** 2

        def make_shapes():
            return [Square(2), Circle(1)]
        """, """
        import math

        class Shape:
            def area(self):
                raise NotImplementedError

        class Square(Shape):
            def __init__(self, side):
                self.side = side

            def area(self):
                return self.side ** 2

        class Circle:
            def __init__(self, r):
                self.r = r

            def area(self):
                return math.pi * self.r ** 2

        def make_shapes():
            return [Square(2), Circle(1)]
        """),
    S("stack_class", """
        import pytest

        def test_push_pop():
            s = Stack()
            s.push(1); s.push(2)
            assert s.pop() == 2
            assert s.peek() == 1
            assert len(s) == 1

        def test_empty_pop():
            with pytest.raises(IndexError):
                Stack().pop()
        """, """
        class Stack:
            def __init__(self):
                self._items = []

            def push(self, item):
                self._items.append(item)

            def pop(self):
                return self._items.pop()

            def peek(self):
                return self._items[-1]

            def __len__(self):
                return len(self._items)
        """, """
        class Stack:
            def __init__(self):
                self._items = []

            def push(self, item):
                self._items.append(item)

            def pop(self):
                return self._items.pop(0)

            def peek(self):
                return self._items[-1]

            def __len__(self):
                return len(self._items)
        """),
    S("bank_account_methods", """
        import pytest

        def test_deposit_withdraw():
            acct = BankAccount("ann", 100)
            acct.deposit(50)
            acct.withdraw(30)
            assert acct.balance == 120

        def test_overdraw():
            acct = BankAccount("bob", 10)
            with pytest.raises(ValueError, match="insufficient"):
                acct.withdraw(20)
            assert acct.balance == 10
        """, """
        class BankAccount:
            def __init__(self, owner, balance=0):
                self.owner, self.balance = owner, balance

            def deposit(self, amount):
                self.balance += amount

            def withdraw(self, amount):
                if amount > self.balance:
                    raise ValueError("insufficient funds")
                self.balance -= amount
        """, """
        class BankAccount:
            def __init__(self, owner, balance=0):
                self.owner, self.balance = owner, balance

            def deposit(self, amount):
                self.balance += amount

            def withdraw(self, amount):
                self.balance -= amount
                if self.balance < 0:
                    raise ValueError("insufficient funds")
        """),
    S("iterable_class", """
        def test_countdown_iterates():
            assert list(Countdown(3)) == [3, 2, 1]

        def test_iterates_twice():
            c = Countdown(2)
            assert list(c) == [2, 1]
            assert list(c) == [2, 1]
        """, """
        class Countdown:
            def __init__(self, start):
                self.start = start

            def __iter__(self):
                return iter(range(self.start, 0, -1))
        """, """
        class Countdown:
            def __init__(self, start):
                self.current = start

            def __iter__(self):
                return self

            def __next__(self):
                if self.current <= 0:
                    raise StopIteration
                self.current -= 1
                return self.current + 1
        """),
    S("matrix_matmul_eq", """
        def test_matmul():
            a = Matrix([[1, 2], [3, 4]])
            b = Matrix([[0, 1], [2, 0]])
            assert (a @ b).rows == [[4, 1], [8, 3]]

        def test_identity_eq():
            assert Matrix.identity(2) == Matrix([[1, 0], [0, 1]])
        """, """
        class Matrix:
            def __init__(self, rows):
                self.rows = rows

            def __matmul__(self, other):
                cols = list(zip(*other.rows))
                return Matrix([[sum(a * b for a, b in zip(r, c)) for c in cols] for r in self.rows])

            def __eq__(self, other):
                return self.rows == other.rows

            @classmethod
            def identity(cls, n):
                return cls([[int(i == j) for j in range(n)] for i in range(n)])
        """, """
        class Matrix:
            def __init__(self, rows):
                self.rows = rows

            def __matmul__(self, other):
                return Matrix([[sum(a * b for a, b in zip(r, c)) for c in other.rows] for r in self.rows])

            def __eq__(self, other):
                return self.rows == other.rows

            @classmethod
            def identity(cls, n):
                return cls([[int(i == j) for j in range(n)] for i in range(n)])
        """),
    S("bool_and_truthiness", """
        def test_empty_cart_falsy():
            assert not Cart()

        def test_cart_with_item_truthy():
            cart = Cart()
            cart.add("apple", 2)
            assert cart
            assert cart.total_quantity() == 2
        """, """
        class Cart:
            def __init__(self):
                self.items = {}

            def add(self, name, qty):
                self.items[name] = self.items.get(name, 0) + qty

            def total_quantity(self):
                return sum(self.items.values())

            def __bool__(self):
                return bool(self.items)
        """, """
        class Cart:
            def __init__(self):
                self.items = {}

            def add(self, name, qty):
                self.items[name] = self.items.get(name, 0) + qty

            def total_quantity(self):
                return sum(self.items.values())
        """),
    S("slots_and_attrs", """
        import pytest

        def test_point_attrs():
            p = Point3(1, 2, 3)
            assert (p.x, p.y, p.z) == (1, 2, 3)

        def test_no_new_attributes():
            with pytest.raises(AttributeError):
                Point3(0, 0, 0).w = 1
        """, """
        class Point3:
            __slots__ = ("x", "y", "z")

            def __init__(self, x, y, z):
                self.x, self.y, self.z = x, y, z
        """, """
        class Point3:
            def __init__(self, x, y, z):
                self.x, self.y, self.z = x, y, z
        """),
]
