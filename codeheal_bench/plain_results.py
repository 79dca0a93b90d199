"""The HumanEval hidden check's guard, run in the sandbox (standard library only; hidden.py puts
this source into the check's tests): the entry point wrapped so that each result must be plain
data, builtin scalars and containers that compare as builtins do. A class of the candidate's, or
a subclass of a builtin that redefines how it compares, is not plain data: its `__eq__` (or
`__bool__`) could agree with anything the check asks."""

import collections as _bench_collections
import decimal as _bench_decimal
import fractions as _bench_fractions

_BENCH_PLAIN_TYPES = (bool, int, float, complex, str, bytes, type(None), _bench_decimal.Decimal,
                      _bench_fractions.Fraction)
_BENCH_CONTAINERS = (list, tuple, dict, set, frozenset)
_BENCH_READ_AS = {_bench_collections.OrderedDict: dict, _bench_collections.Counter: dict,
                  _bench_collections.deque: list}
_BENCH_COMPARISON_METHODS = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__bool__")


def _bench_not_plain(obj, depth=0):
    """The name of the first type in `obj` that is not plain data, or None when all of it is."""
    kind = type(obj)
    if depth > 50:
        return kind.__name__
    if kind in _BENCH_READ_AS:
        base = _BENCH_READ_AS[kind]
        obj = base(dict.items(obj)) if base is dict else base(_bench_collections.deque.__iter__(obj))
        kind = base
    base = next((t for t in (*_BENCH_PLAIN_TYPES, *_BENCH_CONTAINERS) if issubclass(kind, t)), None)
    if base is None or (kind is not base and any(getattr(kind, m, None) is not getattr(base, m, None)
                                                 for m in _BENCH_COMPARISON_METHODS)):
        return kind.__name__
    if base in (int, float, complex):
        base.__repr__(obj)  # ValueError past the int's digit limit, as when it is written out
    if base is dict:
        items = [part for pair in dict.items(obj) for part in pair]
    elif base in _BENCH_CONTAINERS:
        items = list(base.__iter__(obj))
    else:
        items = []
    return next((found for item in items if (found := _bench_not_plain(item, depth + 1))), None)


def _bench_plain_results(function):
    """`function`, whose every result must be plain data (else TypeError naming its type)."""

    def checked(*args, **kwargs):
        result = function(*args, **kwargs)
        kind = _bench_not_plain(result)
        if kind is not None:
            raise TypeError(f"the result is a {kind}, not plain data: its comparisons are its own")
        return result

    return checked
