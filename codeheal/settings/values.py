"""A setting's field: its description and default for Studio's form and the CLI's help, its
plain type, and its value read from text (an environment variable)."""

from __future__ import annotations

import dataclasses
from typing import Any, Literal, get_args, get_origin, get_type_hints

from codeheal.errors import ConfigError

_BOOLEANS = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}


def setting(default: object, description: str, *, unset: bool = False, shown: str | None = None) -> Any:
    """A settings field with its `description` (shown by Studio and `--help`) and `default`.
    `unset`: the field starts as None (unset) and the resolver fills it, as Context's do;
    the default is kept under json_schema_extra, as Studio's schema builder (pydantic)
    passes field metadata on as Field arguments. `shown`: the default in words, where the
    resolver chooses it (by model and form) and `default` alone would mislead."""
    shown = shown or ("none" if default is None else repr(default))
    metadata = {"description": f"{description} Default: {shown}.", "json_schema_extra": {"fallback": default}}
    return dataclasses.field(default=None if unset else default, metadata=metadata)


def default_of(field: dataclasses.Field) -> object:
    """The default of a field made by `setting`."""
    return field.metadata["json_schema_extra"]["fallback"]


def hint_of(owner: type, name: str) -> object:
    """The type annotation of field `name` of dataclass `owner`."""
    return get_type_hints(owner)[name]


def choices(hint: object) -> tuple[object, ...] | None:
    """The values a Literal annotation allows (None for any other)."""
    return get_args(hint) if get_origin(hint) is Literal else None


def is_sequence(hint: object) -> bool:
    """Whether an annotation is a tuple of values (a setting given several times, e.g. then_models)."""
    return get_origin(hint) is tuple


def kind(hint: object) -> type:
    """The plain type of an annotation: the first of bool, int and float it names, else str."""
    kinds = get_args(hint) or (hint,)
    return next((k for k in (bool, int, float) if k in kinds), str)


def optional(hint: object) -> bool:
    """Whether an annotation allows None."""
    return type(None) in get_args(hint)


def from_text(name: str, hint: object, text: str, where: str) -> object:
    """A setting's value read from text (`where` names the source in an error): a bool from
    true/false, yes/no, on/off or 1/0; "none" for a setting that may be None; a tuple's
    values separated by commas."""
    if optional(hint) and text.strip().lower() == "none":
        return None
    if is_sequence(hint):
        return tuple(part.strip() for part in text.split(",") if part.strip())
    plain = kind(hint)
    try:
        return _BOOLEANS[text.strip().lower()] if plain is bool else plain(text)
    except (KeyError, ValueError):
        raise ConfigError(f"{where}={text!r} is not a valid {plain.__name__}") from None


def fits(hint: object, value: object) -> bool:
    """Whether `value` is of a setting's plain type: a bool for a bool (not 1, not "false"), an
    int for an int (not a bool), an int or float for a float, a string for a string, None
    where the setting allows it, a tuple or list of strings for a sequence."""
    if value is None:
        return optional(hint)
    if is_sequence(hint):
        return isinstance(value, tuple | list) and all(isinstance(v, str) for v in value)
    plain = kind(hint)
    if plain is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    return type(value) is plain


def expected(hint: object) -> str:
    """A setting's plain type as an error names it."""
    if is_sequence(hint):
        return "a list of strings"
    text = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}[kind(hint)]
    return text + (" or None" if optional(hint) else "")


def one_of(allowed: tuple[object, ...]) -> str:
    """`allowed` as text: "a", "b" or "c"."""
    quoted = [f'"{value}"' for value in allowed]
    return " or ".join([", ".join(quoted[:-1]), quoted[-1]]) if len(quoted) > 1 else quoted[0]
