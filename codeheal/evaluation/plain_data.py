"""Plain data: a value made only of builtin scalars and containers that compare as builtins do,
encoded as tagged JSON (verdict.py decodes it on the host). Copied into each sandbox workspace
as codeheal_plain.py, for the report plugin; standard library
only. A class of the candidate's, or a subclass of a builtin that redefines how it compares,
is not plain data: its `__eq__` could agree with anything.

Everything the encoder uses (the builtins, the types' own methods) is bound when this module
is imported, before the candidate is: patching `builtins.type`, `Fraction.__str__` or this
module's names afterwards does not change what `plain` (a closure) encodes."""

import builtins
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


def _make_plain():
    """The encoder, every name it uses bound now (closure cells, not globals to patch)."""
    type_, issubclass_, getattr_, next_, any_, zip_ = (builtins.type, builtins.issubclass, builtins.getattr, builtins.next,
                                                      builtins.any, builtins.zip)
    recursion_error, not_plain = builtins.RecursionError, NotPlain
    bases = (*PLAIN_TYPES, *CONTAINERS)
    methods = COMPARISON_METHODS
    read_as = dict(READ_AS)
    dict_items, deque_iter = dict.items, collections.deque.__iter__
    bool_of, none_type = bool.__bool__, type(None)
    reprs = {int: int.__repr__, float: float.__repr__, complex: complex.__repr__}
    strs = {decimal.Decimal: decimal.Decimal.__str__, fractions.Fraction: fractions.Fraction.__str__, str: str.__str__}
    iters = {base: base.__iter__ for base in CONTAINERS}
    names = {base: base.__name__ for base in bases}
    hex_of = bytes.hex
    originals = {base: tuple(getattr_(base, m, None) for m in methods) for base in bases}

    def encoded(obj, depth):
        kind = type_(obj)
        if depth > 50:
            raise recursion_error
        if kind in read_as:
            base = read_as[kind]
            obj = base(dict_items(obj)) if base is dict else base(deque_iter(obj))
            kind = base
        base = next_((t for t in bases if issubclass_(kind, t)), None)
        if base is None or (kind is not base and any_(getattr_(kind, m, None) is not original
                                                      for m, original in zip_(methods, originals[base]))):
            raise not_plain(getattr_(kind, "__name__", "object"))
        if base is bool:
            return ["bool", bool_of(obj)]
        if base in reprs:
            return [names[base], reprs[base](obj)]
        if base in strs:
            return [names[base], strs[base](obj)]
        if base is bytes:
            return ["bytes", hex_of(obj)]
        if base is none_type:
            return ["None", None]
        if base is dict:
            return ["dict", [[encoded(k, depth + 1), encoded(v, depth + 1)] for k, v in dict_items(obj)]]
        return [names[base], [encoded(item, depth + 1) for item in iters[base](obj)]]

    def plain(obj):
        """`obj` encoded as tagged plain data; NotPlain (naming its type) when it is not;
        RecursionError when it nests too deep."""
        return encoded(obj, 0)

    return plain


plain = _make_plain()

_SCALARS = {"int": int, "float": float, "complex": complex, "str": str, "Decimal": decimal.Decimal,
            "Fraction": fractions.Fraction}
_COLLECTIONS = {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}


def unplain(encoded, other=None):
    """The value `plain` encoded; `other(kind, data)` decodes a tag that is not plain data's
    (the candidate's handles, candidate_proxy.py); without it such a tag is a KeyError."""
    kind, data = encoded
    if kind == "None":
        return None
    if kind == "bool":
        return bool(data)
    if kind in _SCALARS:
        return _SCALARS[kind](data)
    if kind == "bytes":
        return bytes.fromhex(data)
    if kind == "dict":
        return {unplain(k, other): unplain(v, other) for k, v in data}
    if kind in _COLLECTIONS:
        return _COLLECTIONS[kind](unplain(item, other) for item in data)
    if other is None:
        raise KeyError(kind)
    return other(kind, data)
