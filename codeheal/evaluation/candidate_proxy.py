"""The module form's tests' side of the candidate, copied into each sandbox workspace as
codeheal_proxy.py and loaded by codeheal_pytest.py (by its path, before pytest). The test
module's first line calls `candidate(__file__)`, which starts the candidate in a process of its
own (candidate_host.py, as codeheal_candidate.py) and returns a module `solution` whose names
stand for the candidate's: plain values are copies; functions, classes and other objects are
stand-ins that send each use to the candidate's process and read back plain data only.

Before that process starts, this one removes what it must not reach: the test file's text (its lines
kept in `linecache` for tracebacks; no bytecode of it is written: the job sets
PYTHONDONTWRITEBYTECODE), the workspace and every folder the candidate's process could write
a module into from `sys.path` (so nothing it writes is importable here), and it makes itself not dumpable (no ptrace, no /proc/PID/mem, environ or fd of
it to a process without CAP_SYS_PTRACE). The candidate's process starts with two pipes of its
own and no other descriptor of this one, in an environment without codeheal's variables.

What crosses (docs/security.md):
- arguments: pickled here, unpickled there (the candidate only reads the tests' data); the
  candidate's objects the tests hold go back as themselves. What cannot be pickled, or unpickled
  there (a lambda, a function or class of the tests), raises CandidateBoundaryError.
- results: tagged plain data (codeheal_plain); one that is not exactly made of the builtin
  scalars and containers (and Decimal, Fraction), a namedtuple or Counter read as its base, is
  noted as not faithful; a result that is one of the call's own list, dict or set arguments is
  the tests' argument itself. Anything else crosses as a `Handle` (an instance of
  a stand-in class named like the candidate's, or of Handle itself) whose attributes, calls,
  items and iteration are answered the same way; a handle equals only itself.
- changes in place: a list, dict or set argument the candidate changed is changed here too.
- exceptions: a builtin exception type crosses by name (`pytest.raises(ValueError)`), one of the
  candidate's classes as a stand-in deriving from its nearest builtin type, with the frames
  in solution.py for the report.

What does not cross faithfully is noted against the test that was running (`unfaithful`):
a handle made or used, an exception that crossed without all it carries (its own class, its
arguments, its cause), an argument that could not cross, anything that raised
CandidateBoundaryError. The report plugin sends that note, and the host judges such a test
again with the candidate in the test process, as plain pytest does (forms/module/candidate.py):
what crosses here only ever decides a test that nothing unfaithful touched.
Standard library only."""

import builtins
import io
import json
import linecache
import os
import pickle
import subprocess
import sys
import threading
import types

from codeheal_plain import unplain

CANDIDATE = "solution"
HOST_SCRIPT = "codeheal_candidate.py"
PR_SET_DUMPABLE = 4
ANSWER_CAP_BYTES = 256 * 1024 * 1024
"""The longest answer read from the candidate's process (a longer one is not an answer)."""
KINDS = {"object": "an object", "function": "a function", "class": "a class", "exception": "an exception class",
         "module": "a module"}
RAISED_AS_IS = frozenset({"SystemExit", "StopIteration", "StopAsyncIteration"})
"""Builtin exceptions outside Exception that still cross by name (others: CandidateBoundaryError)."""


_running = [None]
"""The node id of the test running now (set by the report plugin); None while collecting."""
_unfaithful = {}
"""Per test id (None: while collecting), the first thing that did not cross faithfully."""


def running(test):
    """Note that `test` (a node id, or None) runs now: what does not cross faithfully is its."""
    _running[0] = test


def unfaithful(test):
    """What did not cross faithfully while `test` ran (None: while collecting), and forget it;
    None if nothing."""
    return _unfaithful.pop(test, None)


def _note(reason):
    _unfaithful.setdefault(_running[0], reason)


class CandidateBoundaryError(BaseException):
    """Something that could not cross between the tests and the candidate's process. Not an
    Exception: no `pytest.raises(Exception)` or `except Exception` of a test takes it for a
    result of the candidate. Noted against the running test, which is then judged again with
    the candidate in the test process."""

    def __init__(self, *args):
        super().__init__(*args)
        _note(str(args[0]) if args else "CandidateBoundaryError")


class HandleClass(type):
    """The type of the stand-ins for the candidate's classes: calling one, or reading its
    attributes, is done in the candidate's process."""

    def __call__(cls, *args, **kwargs):
        if "_codeheal_class_ref" not in vars(cls):
            raise CandidateBoundaryError(f"{cls.__name__} stands for an object of the candidate's and cannot be made here")
        return _link.request("call", cls, args, kwargs)

    def __getattr__(cls, name):
        if name.startswith(("__", "_codeheal")) or "_codeheal_class_ref" not in vars(cls):
            raise AttributeError(name)
        return _link.request("getattr", cls, name)

    def __setattr__(cls, name, value):
        _note(f"the tests set {cls.__name__}.{name}, which the candidate's process does not see")
        super().__setattr__(name, value)

    def __new__(mcls, name, bases, namespace, **kwargs):
        if "_codeheal_class_ref" not in namespace and any("_codeheal_class_ref" in vars(b) for b in bases):
            raise CandidateBoundaryError(f"the tests subclass the candidate's class {bases[0].__name__}, whose "
                                         "methods run in its own process")
        return super().__new__(mcls, name, bases, namespace)

    def __getitem__(cls, item):
        raise CandidateBoundaryError(f"the tests subscript the candidate's class {cls.__name__} ({cls.__name__}[...])")


def _made_here(self, *args):
    _note(f"an exception of the candidate's ({type(self).__name__}) was made without its own __init__")
    BaseException.__init__(self, *args)


class FunctionHandle:
    """A stand-in for a function of the candidate's: calling it is done in its process; an
    attribute it lacks here is asked there, and one the tests set, or its binding as a method,
    is noted (its process does not see them)."""

    def __init__(self, name):
        for attribute, value in (("__name__", name), ("__qualname__", name), ("__module__", CANDIDATE),
                                 ("__doc__", None)):
            object.__setattr__(self, attribute, value)

    def __call__(self, *args, **kwargs):
        return _link.request("call", self, args, kwargs)

    def __getattr__(self, name):
        if name.startswith("_"):  # what tools probe functions for (pytest's markers, functools)
            raise AttributeError(name)
        _note(f"the tests read {self.__name__}.{name}, an attribute of the candidate's function")
        return _link.request("getattr", self, name)

    def __setattr__(self, name, value):
        _note(f"the tests set {self.__name__}.{name}, which the candidate's process does not see")
        object.__setattr__(self, name, value)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        _note(f"the tests bound the candidate's function {self.__name__} as a method")
        return types.MethodType(self, instance)

    def __repr__(self):
        return f"<function {self.__qualname__}>"


def _no_order(self, other):
    raise CandidateBoundaryError(f"an object of the candidate's ({type(self).__name__}) is compared only by == "
                                 "with itself here, never by !=, <, <=, > or >=")


def _inexact():
    _note("what the candidate returned or changed does not cross exactly (a subclass, a Counter, a result it "
          "returned before, an argument other than a list, dict or set changed in place)")


def _used(handle):
    if _running[0] is not None:
        _note(f"an object of the candidate's ({type(handle).__name__}) was used")


class Handle(metaclass=HandleClass):
    """An object of the candidate's process, held by number."""

    __slots__ = ("_codeheal_ref",)

    def __getattr__(self, name):
        if name.startswith(("__", "_codeheal")):
            raise AttributeError(name)
        return _link.request("getattr", self, name)

    def __setattr__(self, name, value):
        if name == "_codeheal_ref":
            object.__setattr__(self, name, value)
        else:
            _link.request("setattr", self, name, value)

    def __call__(self, *args, **kwargs):
        return _link.request("call", self, args, kwargs)

    def __len__(self):
        return _link.request("len", self)

    def __bool__(self):
        raise CandidateBoundaryError(f"the truth of an object of the candidate's ({type(self).__name__}) is not "
                                     "decided by it: test its plain data (len(x) == 0, x.items == [])")

    def __iter__(self):
        return _link.request("iter", self)

    def __next__(self):
        return _link.request("next", self)

    def __getitem__(self, key):
        return _link.request("getitem", self, key)

    def __setitem__(self, key, value):
        _link.request("setitem", self, key, value)

    def __delitem__(self, key):
        _link.request("delitem", self, key)

    def __contains__(self, item):
        return _link.request("contains", self, item)

    def __repr__(self):
        return _link.request("repr", self)

    def __str__(self):
        return _link.request("str", self)

    def __eq__(self, other):
        _used(self)
        return self is other

    def __hash__(self):
        _used(self)
        return object.__hash__(self)

    __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _no_order


class _Pickler(pickle.Pickler):
    def __init__(self, file, link):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.link = link

    def persistent_id(self, obj):
        if isinstance(obj, Handle):
            return obj._codeheal_ref
        return self.link.numbers.get(id(obj))


class _Link:
    """The pipes to the candidate's process, and the stand-ins for its objects."""

    def __init__(self):
        self.process = None
        self.lock = threading.RLock()
        self.objects = {}  # number -> the stand-in
        self.numbers = {}  # id of a stand-in function or class -> its number

    def start(self, workspace):
        requests_read, requests_write = os.pipe()
        answers_read, answers_write = os.pipe()
        # The test process's site: none (-S), unless codeheal's launcher added it (CODEHEAL_SITE).
        flags = ["-S"] if sys.flags.no_site and not os.environ.get("CODEHEAL_SITE") else []
        env = {k: v for k, v in os.environ.items() if not k.startswith("CODEHEAL")}
        self.process = subprocess.Popen(
            [sys.executable, "-s", "-B", "-u", *flags, os.path.join(workspace, HOST_SCRIPT), str(requests_read), str(answers_write)],
            cwd=workspace, env=env, pass_fds=(requests_read, answers_write), stdin=subprocess.DEVNULL,
        )
        os.close(requests_read)
        os.close(answers_write)
        self.requests, self.answers = requests_write, answers_read
        return self.answer(None, ())

    def ref(self, obj):
        if isinstance(obj, Handle):
            return obj._codeheal_ref
        return self.numbers[id(obj)]

    def request(self, op, target, *rest):
        """Ask the candidate's process to do `op` on `target` (None: its module); one request
        at a time, whatever thread of the tests asks."""
        if isinstance(target, Handle):
            _used(target)
        with self.lock:
            return self._request(op, target, rest)

    def _request(self, op, target, rest):
        if self.process is None:
            raise CandidateBoundaryError("the candidate's process is not running")
        buffer = io.BytesIO()
        try:
            _Pickler(buffer, self).dump((op, None if target is None else self.ref(target), rest))
        except Exception as exc:  # noqa: BLE001
            raise CandidateBoundaryError(
                f"an argument cannot cross to the candidate's process ({type(exc).__name__}: {exc}); "
                "plain data, the standard library's values and the candidate's own objects can") from None
        data = buffer.getvalue()
        data = len(data).to_bytes(8, "big") + data
        try:
            while data:
                data = data[os.write(self.requests, data):]
        except OSError:
            self.ended()
        return self.answer(op, rest)

    def answer(self, op, rest):
        try:
            size = int.from_bytes(self._read(8), "big")
            if size > ANSWER_CAP_BYTES:
                raise ValueError("too long")
            kind, body, *more = json.loads(self._read(size))
            if kind in ("ok", "raise") and op == "call" and more and more[0]:
                self.changed(rest, more[0])  # applied when it raised too, as in one process
            exact = not (kind == "ok" and len(more) > 2 and more[2] is not True)
            if kind == "ok" and op == "call" and len(more) > 1 and more[1] is not None:
                if not exact:
                    _inexact()
                return self.argument(rest, more[1])  # it returned the tests' own argument
            if kind == "raise":
                raised = self.exception(*body)
                if isinstance(raised, (StopIteration, StopAsyncIteration)) and op != "next":
                    # only `next` ends an iteration: from a call it would end the tests' own loop
                    # (`all(map(f, xs))` true on what it never saw)
                    raised = CandidateBoundaryError(f"{body[0]} raised by the candidate outside `next`")
            elif kind == "ok":
                value = self.decode(body)  # an object in it is noted as such first
                if not exact:
                    _inexact()
                return value
            else:
                raised = CandidateBoundaryError(str(body))
        except (EOFError, OSError):
            self.ended()
        except CandidateBoundaryError:
            raise
        except Exception:  # noqa: BLE001  (what it sent is not an answer: never an exception a test expects)
            raise CandidateBoundaryError("the candidate's process answered with something that is not plain data") from None
        raise raised from None

    def _read(self, size):
        data = b""
        while len(data) < size:
            chunk = os.read(self.answers, size - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    def ended(self):
        code = self.process.wait()
        self.process = None
        raise CandidateBoundaryError(f"the candidate's process ended (exit code {code})") from None

    def decode(self, encoded):
        return None if encoded is None else unplain(encoded, self.other)

    @staticmethod
    def argument(rest, key):
        args, kwargs = rest
        return args[int(key)] if key.isdigit() else kwargs[key]

    def changed(self, rest, changed):
        """Apply the candidate's changes in place to the tests' own list, dict or set arguments
        (objects nested in them are new copies: noted as not faithful)."""
        for key, encoded in changed.items():
            target = self.argument(rest, key)
            value = self.decode(encoded)
            if any(isinstance(item, (list, dict, set)) for item in (value.values() if isinstance(value, dict) else value)):
                _note("an argument holding containers was changed in place (they cross as copies)")
            if type(value) is not type(target):
                raise ValueError("an argument changed into another type")
            if isinstance(target, list):
                target[:] = value
            else:
                target.clear()
                target.update(value)

    def other(self, kind, data):
        """A stand-in for what the candidate's process holds (its tags: candidate_host.Host.handle)."""
        number = data[0]
        if _running[0] is not None:
            _note(f"the candidate's process sent {KINDS.get(kind, 'a value')} that is not plain data")
        if number in self.objects:
            return self.objects[number]
        if kind == "function":
            made = self.function(number, str(data[1]))
        elif kind == "class":
            parent = Handle if data[2] is None else self.decode(data[2])
            made = HandleClass(str(data[1]), (parent,), {"__slots__": (), "__module__": CANDIDATE,
                                                          "_codeheal_class_ref": number})
        elif kind == "exception":
            parent = self.decode(data[3]) if data[3] is not None else _exception_base(str(data[2]))
            made = type(str(data[1]), (parent,), {"__module__": CANDIDATE, "__init__": _made_here})
        elif kind == "module" and str(data[1]) in sys.modules:
            made = sys.modules[str(data[1])]
        elif kind in ("object", "module"):
            cls = Handle if kind == "module" or data[1][0] == "type" else self.decode(data[1])
            made = object.__new__(cls)
            made._codeheal_ref = number
            self.objects[number] = made
            return made
        else:
            raise CandidateBoundaryError(f"the candidate's process sent an unknown kind of value ({kind!r})")
        self.objects[number] = made
        self.numbers[id(made)] = number
        return made

    def function(self, number, name):
        return FunctionHandle(name)

    def exception(self, name, base, message, encoded, frames=(), faithful=False):
        """The exception the candidate raised, as the tests' side can hold it (`faithful`: a
        builtin type whose arguments are its message alone, and no cause)."""
        if not faithful or encoded is not None or name != base:
            _note(f"the candidate raised {name}, which crosses without its class, arguments or cause")
        if encoded is not None:
            kind = self.decode(encoded)
        elif name == base and isinstance(getattr(builtins, name, None), type):
            kind = getattr(builtins, name)
            if not issubclass(kind, Exception) and name not in RAISED_AS_IS:
                kind = CandidateBoundaryError
        else:  # the standard library's (json.JSONDecodeError): its name on its builtin base
            kind = type(str(name), (_exception_base(str(base)),), {"__module__": CANDIDATE})
        try:
            exc = kind(message) if kind is not CandidateBoundaryError else kind(f"{name}: {message}")
        except Exception:  # noqa: BLE001  (a type whose constructor wants more: UnicodeDecodeError)
            exc = CandidateBoundaryError(f"{name}: {message}")
        exc._codeheal_frames = [f for f in frames if isinstance(f, dict)]
        return exc


def _exception_base(name):
    found = getattr(builtins, name, None)
    if isinstance(found, type) and (issubclass(found, Exception) or name in RAISED_AS_IS):
        return found
    return CandidateBoundaryError


_link = _Link()


class _Module(types.ModuleType):
    """The tests' `solution`: a name they set on it does not reach the candidate's process."""

    def __setattr__(self, name, value):
        _note(f"the tests set solution.{name}, which the candidate's process does not see")
        super().__setattr__(name, value)


def _writable(entry):
    """Whether the candidate's process (the same uid) could put a module where `entry` of
    sys.path leads: the folder, or its nearest existing parent, is writable. Root writes
    anywhere: nothing is left out for it (basic isolation, which promises none of this)."""
    if os.geteuid() == 0:
        return False
    path = os.path.realpath(entry)
    while not os.path.exists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    return os.access(path, os.W_OK)


def candidate(test_file):
    """The candidate's module as the tests see it, its process started once `test_file` is gone."""
    with open(test_file, encoding="utf-8") as source:
        lines = source.readlines()
    linecache.cache[test_file] = (sum(map(len, lines)), None, lines, test_file)  # no mtime: never re-read
    with open(test_file, "w", encoding="utf-8"):  # emptied, not removed: pytest checks the module's file is there
        pass
    try:
        import ctypes
        ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    workspace = os.path.dirname(os.path.abspath(test_file))
    real = os.path.realpath(workspace)
    sys.path[:] = [p for p in sys.path if os.path.realpath(p or ".") != real and not _writable(p or ".")]
    sys.path_importer_cache.clear()
    _link.start(workspace)
    module = _Module(CANDIDATE)
    module.__dict__.update(_link.request("names", None))
    sys.modules[CANDIDATE] = module
    return module
