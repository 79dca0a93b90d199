"""The schema of what crosses from the sandbox: each evidence record of the report plugin and
the supervisor's own record, checked field by field on the host before anything reads them.

A record that does not match (an unknown event, a missing field, a field of another type, a
field the plugin never writes) is not evidence: the report that carries it is untrusted and the
run is a failed attempt that says so. So no reader of the evidence meets a value of a shape it
did not expect, and no shape decides a verdict by crashing the host."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

__all__ = ["SCHEMA_PROBLEM_CHARS", "checked_evidence", "checked_supervisor"]

SCHEMA_PROBLEM_CHARS = 200
"""How much of a record's schema problem is kept for the message."""


class _Strict(BaseModel):
    """No field the plugin does not write, no conversion between types, and no null: a field
    the plugin leaves out is absent, never null."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    @model_validator(mode="after")
    def _no_null(self) -> _Strict:
        if nulls := sorted(name for name in self.model_fields_set if getattr(self, name) is None):
            raise ValueError(f"null is not a value codeheal writes ({', '.join(nulls)})")
        return self


class _Frame(_Strict):
    file: str
    line: int
    function: str
    source: str


class _Counts(_Strict):
    passed: int
    failed: int
    skipped: int


class _Start(_Strict):
    event: Literal["start"]


class _Collected(_Strict):
    event: Literal["collected"]
    tests: list[str]
    watched: list[str]


class _Begin(_Strict):
    event: Literal["begin"]
    test: str


class _Ended(_Strict):
    event: Literal["ended"]
    test: str


class _Coverage(_Strict):
    event: Literal["coverage"]
    test: str
    lines: dict[str, list[int]]


class _Duration(_Strict):
    event: Literal["duration"]
    test: str
    seconds: float = Field(ge=0)


class _Overrun(_Strict):
    """A test that ran past its own time limit (clock.py): the run is a timeout."""

    event: Literal["overrun"]
    test: str
    limit: float = Field(gt=0)


class _Value(_Strict):
    """One side of a watched assert: exactly one of plain data, too big, or an object's type."""

    event: Literal["value"]
    test: str
    check: int
    side: int = Field(ge=0, le=1)
    plain: list | None = None
    big: str | None = None
    object: str | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> _Value:
        kinds = [self.plain is not None, self.big is not None, self.object is not None]
        if kinds.count(True) != 1:
            raise ValueError("a value record holds exactly one of plain, big, or object")
        if self.plain is not None and len(self.plain) != 2:
            raise ValueError("a plain value is [kind, data]")
        return self


class _Compared(_Strict):
    """How often an assert of a test was checked in the test process on plain data, and how often
    it did not hold (every run of it, not only those sent)."""

    event: Literal["compared"]
    test: str
    check: int
    count: int = Field(ge=1)
    failed: int = Field(ge=0)


class _Described(_Strict):
    """A failure's description, as `_describe` writes it."""

    exception: str | None = None
    message: str | None = None
    frames: list[_Frame] | None = None


class _Result(_Described):
    event: Literal["result"]
    test: str
    name: str
    when: Literal["setup", "call", "teardown"]
    outcome: Literal["passed", "failed", "skipped"]
    xfail: bool | None = None
    reason: str | None = None
    inputs: dict[str, str] | None = None
    expected: str | None = None
    actual: str | None = None
    subtests: _Counts | None = None

    @model_validator(mode="after")
    def _xfail_is_marked(self) -> _Result:
        if self.xfail is False:
            raise ValueError("xfail is sent only as true")
        return self


class _Subtest(_Result):
    event: Literal["subtest"]  # type: ignore[assignment]
    subtest: str


class _CollectError(_Described):
    event: Literal["collect_error"]
    test: str


class _Unfaithful(_Strict):
    """Something that did not cross faithfully between the tests and the module form's
    candidate while a test ran ("" while collecting): the host judges it again."""

    event: Literal["unfaithful"]
    test: str
    reason: str


class _Finish(_Strict):
    event: Literal["finish"]
    exitstatus: int
    collected: int


class _Supervisor(_Strict):
    exit_code: int
    forged_lines: int = Field(ge=0)
    evidence_cut: bool


_EVENT = TypeAdapter(Annotated[
    _Start | _Collected | _Begin | _Ended | _Coverage | _Duration | _Overrun | _Value | _Compared | _Result
    | _Subtest | _CollectError | _Unfaithful | _Finish,
    Field(discriminator="event"),
])
_SUPERVISOR = TypeAdapter(_Supervisor)


def checked_evidence(record: object) -> dict | str:
    """The record as evidence (only the fields it sent), or why it is not evidence."""
    return _checked(_EVENT, record)


def checked_supervisor(record: object) -> dict | str:
    """The supervisor's record, or why it is not one."""
    return _checked(_SUPERVISOR, record)


def _checked(schema: TypeAdapter, record: object) -> dict | str:
    try:
        return schema.validate_python(record).model_dump(exclude_unset=True)
    except ValidationError as exc:
        first = exc.errors(include_url=False, include_input=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "record"
        return f"{where}: {first['msg']}"[:SCHEMA_PROBLEM_CHARS]
