"""Plain data: a value made only of builtin scalars and containers that compare as builtins do,
encoded as tagged JSON (verdict.py decodes it on the host). Copied into each sandbox workspace
as codeheal_plain.py, for the report plugin; standard library
only. A class of the candidate's, or a subclass of a builtin that redefines how it compares,
is not plain data: its `__eq__` could agree with anything."""

import collections
import decimal
import fractions

PLAIN_TYPES = (bool, int, float, complex, str, bytes, type(None), decimal.Decimal, fractions.Fraction)
CONTAINERS = (list, tuple, dict, set, frozenset)
READ_AS = {collections.OrderedDict: dict, collections.Counter: dict, collections.deque: list}
"""Standard library containers that redefine comparing, read as the builtin they extend (exact type only)."""
COMPARISON_METHODS = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__bool__")


class NotPlain(Exception):
    """A value that is not plain data; its message is the name of its type."""


def _encoded(obj, depth):
    """`obj` as tagged JSON data, read through the builtin types' own methods: a subclass that
    redefines how it compares is not plain data."""
    kind = type(obj)
    if depth > 50:
        raise RecursionError
    if kind in READ_AS:
        base = READ_AS[kind]
        obj = base(dict.items(obj)) if base is dict else base(collections.deque.__iter__(obj))
        kind = base
    base = next((t for t in (*PLAIN_TYPES, *CONTAINERS) if issubclass(kind, t)), None)
    if base is None or (kind is not base and any(getattr(kind, m, None) is not getattr(base, m, None)
                                                 for m in COMPARISON_METHODS)):
        raise NotPlain(kind.__name__)
    if base is bool:
        return ["bool", bool.__bool__(obj)]
    if base in (int, float, complex):
        return [base.__name__, base.__repr__(obj)]
    if base in (decimal.Decimal, fractions.Fraction):
        return [base.__name__, base.__str__(obj)]
    if base is str:
        return ["str", str.__str__(obj)]
    if base is bytes:
        return ["bytes", bytes.hex(obj)]
    if base is type(None):
        return ["None", None]
    if base is dict:
        return ["dict", [[_encoded(k, depth + 1), _encoded(v, depth + 1)] for k, v in dict.items(obj)]]
    return [base.__name__, [_encoded(item, depth + 1) for item in base.__iter__(obj)]]




def plain(obj):
    """`obj` encoded as tagged plain data; NotPlain (naming its type) when it is not;
    RecursionError when it nests too deep."""
    return _encoded(obj, 0)
