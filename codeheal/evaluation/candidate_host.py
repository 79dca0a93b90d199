"""The module form's candidate process, copied into each sandbox workspace as
codeheal_candidate.py and started by the test process (candidate_proxy.py, codeheal_proxy) as
`python -s -B -u codeheal_candidate.py REQUESTS_FD ANSWERS_FD`: it imports the candidate (solution.py, by its path) and
serves the test process's requests on two pipes (the descriptors its arguments name), one at a time.

What crosses: requests come pickled from the test process (trusted: it is the tests and
codeheal's harness); answers go back as JSON of tagged plain data (codeheal_plain), which is
all the test process reads. An object that is not plain data (an instance of the candidate's
class, a generator, a function it returns) stays here and crosses as a handle: a number and
what kind of thing it is; the test process then asks for its attributes, calls, items,
iteration or its repr, each answered the same way. A value the plain-data encoder reads as its
builtin base (a namedtuple, a Counter, a defaultdict) crosses as that base, with a flag saying
it is not exactly what the candidate returned (the test process then notes the test as not
carried faithfully; the benchmarks' hidden check compares it as the plain value). An exception crosses as
its type's name, the name of its nearest builtin exception type, its message, and whether
that is all it carries (a builtin type, its message its only argument, no cause).

It holds nothing of the test side: no test file (the test process removed it before starting
this one), no report descriptor, no key, and an environment without codeheal's variables.
Standard library only."""

import decimal
import fractions
import io
import json
import os
import pickle
import sys
import traceback
import types

import codeheal_plain

CANDIDATE = "solution"
MESSAGE_CHARS = 10_000
MUTABLE = (list, dict, set)
"""Argument types whose changes in place are sent back (the test process applies them)."""
EXACT = frozenset({bool, int, float, complex, str, bytes, type(None), decimal.Decimal, fractions.Fraction})
"""Scalar types a result may be made of to cross exactly as it is (a subclass crosses as its base, flagged)."""
CONTAINERS = (list, tuple, set, frozenset, dict)
FUNCTIONS = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.BuiltinMethodType)


def _builtin_base(kind):
    """The nearest builtin exception type `kind` derives from."""
    return next(t for t in kind.__mro__ if t.__module__ == "builtins" and issubclass(t, BaseException))


class Host:
    """The candidate's objects the test process holds (by number), and the encoding of answers."""

    def __init__(self, module):
        self.module = module
        self.objects = {}
        self.numbers = {}
        self.returned = {}
        """Mutable results sent before, by id (held, so no id is reused): sent again, the tests
        would hold two copies of what is one object here."""

    def number(self, obj):
        key = id(obj)
        if key not in self.numbers:
            self.numbers[key] = len(self.objects)
            self.objects[self.numbers[key]] = obj  # held: its id is not reused while the run lasts
        return self.numbers[key]

    def own(self, kind):
        """Whether class `kind` is the candidate's (defined in solution.py)."""
        return getattr(kind, "__module__", None) == CANDIDATE

    def wire(self, obj, depth=0):
        """`obj` as tagged plain data, with a handle for each part that is not plain data."""
        if depth > 50:
            raise RecursionError
        try:
            return codeheal_plain.plain(obj)
        except codeheal_plain.NotPlain:
            pass
        kind = type(obj)
        if kind in (list, tuple, set, frozenset):
            return [kind.__name__, [self.wire(item, depth + 1) for item in obj]]
        if kind is dict:
            return ["dict", [[self.wire(k, depth + 1), self.wire(v, depth + 1)] for k, v in obj.items()]]
        return self.handle(obj, depth)

    def handle(self, obj, depth=0):
        number = self.number(obj)
        if isinstance(obj, type) and issubclass(obj, BaseException):
            parent = next((b for b in obj.__bases__ if self.own(b) and issubclass(b, BaseException)), None)
            return ["exception", [number, obj.__name__, _builtin_base(obj).__name__,
                                  None if parent is None else self.handle(parent, depth + 1)]]
        if isinstance(obj, type):
            parent = next((b for b in obj.__bases__ if self.own(b)), None)
            return ["class", [number, obj.__name__, None if parent is None else self.handle(parent, depth + 1)]]
        if isinstance(obj, FUNCTIONS):
            return ["function", [number, getattr(obj, "__name__", "function")]]
        if isinstance(obj, types.ModuleType) and not self.own(obj):
            return ["module", [number, obj.__name__]]
        kind = type(obj)
        return ["object", [number, self.handle(kind, depth + 1) if self.own(kind) else ["type", [None, kind.__qualname__]]]]

    def serve(self, op, ref, rest):
        obj = self.module if ref is None else self.objects[ref]
        if op == "names":
            return {name: value for name, value in vars(obj).items() if not name.startswith("__")}
        if op == "call":
            return obj(*rest[0], **rest[1])
        if op == "getattr":
            return getattr(obj, rest[0])
        if op == "setattr":
            return setattr(obj, rest[0], rest[1])
        if op in ("repr", "str"):
            return (repr if op == "repr" else str)(obj)[:MESSAGE_CHARS]
        if op == "len":
            return len(obj)
        if op == "iter":
            return iter(obj)
        if op == "next":
            return next(obj)
        if op == "getitem":
            return obj[rest[0]]
        if op == "setitem":
            obj[rest[0]] = rest[1]
            return None
        if op == "delitem":
            del obj[rest[0]]
            return None
        if op == "contains":
            return rest[0] in obj
        raise ValueError(f"unknown request {op!r}")


def _exact(obj, depth=0):
    """Whether `obj` is made of exactly the EXACT scalars and the builtin containers."""
    kind = type(obj)
    if kind in EXACT:
        return True
    if kind not in CONTAINERS or depth > 50:
        return False
    items = [part for pair in obj.items() for part in pair] if kind is dict else obj
    return all(_exact(item, depth + 1) for item in items)


def _dumped(value):
    """`value` pickled, to tell whether a call changed it; None when it cannot be."""
    try:
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001
        return None


def _read_exactly(fd, size):
    data = b""
    while len(data) < size:
        chunk = os.read(fd, size - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def _write(fd, answer):
    data = json.dumps(answer).encode()
    data = len(data).to_bytes(8, "big") + data
    while data:
        data = data[os.write(fd, data):]


class _Requests(pickle.Unpickler):
    def __init__(self, data, host):
        super().__init__(io.BytesIO(data))
        self.host = host

    def persistent_load(self, pid):
        return self.host.objects[pid]


def _changed(host, args, kwargs, before):
    """The arguments (position or name) that the call changed in place, as they are now."""
    changed = {}
    for key, encoded in before.items():
        value = args[key] if isinstance(key, int) else kwargs[key]
        now = host.wire(value)
        if now != encoded:
            changed[str(key)] = now
    return changed


def main():
    try:
        import ctypes
        ctypes.CDLL(None).prctl(1, 9, 0, 0, 0)  # PR_SET_PDEATHSIG, SIGKILL: gone with the test process
    except (OSError, AttributeError):
        pass
    requests, answers = int(sys.argv[1]), int(sys.argv[2])
    os.set_inheritable(requests, False)
    os.set_inheritable(answers, False)
    sys.path[:] = [p for p in sys.path if p and os.path.realpath(p) != os.getcwd()]
    sys.argv[:] = [CANDIDATE]
    from importlib.util import module_from_spec, spec_from_file_location
    spec = spec_from_file_location(CANDIDATE, os.path.join(os.getcwd(), CANDIDATE + ".py"))
    module = module_from_spec(spec)
    sys.modules[CANDIDATE] = module
    host = Host(module)
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:  # noqa: BLE001  (the import's failure is the first answer)
        _write(answers, _raised(exc, host))
        return
    _write(answers, ["ok", None, {}])
    while True:
        try:
            size = int.from_bytes(_read_exactly(requests, 8), "big")
            data = _read_exactly(requests, size)
        except EOFError:
            return
        _write(answers, _answer(host, data))


def _answer(host, data):
    try:
        op, ref, rest = _Requests(data, host).load()
    except Exception as exc:  # noqa: BLE001
        return ["error", f"the arguments could not cross to the candidate's process ({type(exc).__name__}: {exc})"[:MESSAGE_CHARS]]
    arguments = dict([*enumerate(rest[0]), *rest[1].items()]) if op == "call" else {}
    before = {k: host.wire(v) for k, v in arguments.items() if type(v) in MUTABLE}
    others = {k: _dumped(v) for k, v in arguments.items() if type(v) not in (*MUTABLE, *EXACT)}
    try:
        result = host.serve(op, ref, rest)
    except BaseException as exc:  # noqa: BLE001
        answer = _raised(exc, host)
    else:
        answer = None
    try:
        changed = _changed(host, *rest, before) if before else {}  # changes in place count when it raised too
        # an argument of another kind (a deque, a bytearray) changed in place: the tests' copy did not
        untracked = any(_dumped(arguments[k]) != dump for k, dump in others.items())
        if answer:
            answer[1][5] = answer[1][5] and not untracked
            return answer + [changed]
        same = next((str(k) for k, v in arguments.items() if v is result), None) if type(result) in MUTABLE else None
        again = type(result) in MUTABLE and same is None and id(result) in host.returned
        if type(result) in MUTABLE:
            host.returned[id(result)] = result
        faithful = op == "names" or (_exact(result) and not untracked and not again)
        return ["ok", None if same is not None else host.wire(result), changed, same, faithful]
    except (RecursionError, ValueError):
        return ["error", "the result or an argument changed in place nests too deep to cross as plain data"]


def _raised(exc, host):
    kind = type(exc)
    encoded = host.handle(kind) if host.own(kind) else None
    try:
        message = str(exc)[:MESSAGE_CHARS]
    except Exception:  # noqa: BLE001
        message = ""
    try:
        faithful = (kind.__module__ == "builtins" and exc.args in ((), (message,)) and exc.__cause__ is None
                    and exc.__context__ is None and not getattr(exc, "__notes__", None))
    except Exception:  # noqa: BLE001
        faithful = False
    return ["raise", [kind.__name__, _builtin_base(kind).__name__, message, encoded, _frames(exc), faithful]]


def _frames(exc):
    """Where in solution.py the exception was raised (every frame: the host keeps the ends)."""
    path = os.path.join(os.getcwd(), CANDIDATE + ".py")
    frames = [{"file": CANDIDATE + ".py", "line": frame.lineno, "function": frame.name, "source": (frame.line or "").strip()}
              for frame in traceback.extract_tb(exc.__traceback__) if frame.filename == path]
    return frames


if __name__ == "__main__":
    main()
    os._exit(0)  # threads the candidate left do not keep it
