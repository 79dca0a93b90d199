"""codeheal's way into pytest, copied into each sandbox workspace as codeheal_pytest.py and run
by its absolute path (the supervisor turns `-m codeheal_pytest` in the test process's command
into that path): `python /WORKSPACE/codeheal_pytest.py PYTEST_ARGS`.

It starts path-isolated: before anything is imported, every entry of `sys.path` in the
workspace (its own folder, "", an editable install's source folder, a PYTHONPATH entry) is
taken out, except the interpreter's own installation and virtualenv. Then it loads codeheal's
report plugin, its plain-data encoder and its per-test clock by their absolute paths; the plugin reads
the key and binds its primitives then. So no project module named like one they import
(`inspect`, `json`, `functools`) nor a package named like the harness runs first. The job
starts with no site (-S, the supervisor's too): where the test process runs with its
environment's site-packages (CODEHEAL_SITE), they are added (site.main()) only now, so no `.pth`
file of the environment (an editable install's import finder answering the harness's imports)
runs before the key is held. Then pytest is imported.
Only then is the path put back as it was, and pytest started with the plugin registered before
it reads any configuration, so the plugin comes before the project's `addopts`, plugins and
conftest files."""

import sys

_PATH = list(sys.path)
_HERE = sys.path[0]  # this file's folder: the workspace
sys.path[:] = [p for p in _PATH if p and p != _HERE and not p.startswith(_HERE + "/")]

import os  # noqa: E402  (the workspace is off the path now)

_ROOT = os.path.realpath(_HERE)
_OWN = tuple(os.path.realpath(p) for p in {sys.prefix, sys.base_prefix, sys.exec_prefix})


def _isolated(entry: str) -> bool:
    """Whether `entry` of the path stays during the harness's imports: outside the workspace,
    or in the interpreter's own installation or virtualenv (which may lie in the project)."""
    real = os.path.realpath(entry)
    inside = real == _ROOT or real.startswith(_ROOT + os.sep)
    return not inside or any(real == own or real.startswith(own + os.sep) for own in _OWN)


sys.path[:] = [p for p in sys.path if _isolated(p)]

from importlib.util import module_from_spec, spec_from_file_location  # noqa: E402


def _load(name: str):
    """The harness module `name`, from its file beside this one."""
    spec = spec_from_file_location(name, os.path.join(_HERE, name + ".py"))
    module = module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_load("codeheal_plain")
_load("codeheal_clock")
_load("codeheal_proxy")
codeheal_report = _load("codeheal_report")

# The harness holds its key now. The job started with no site (-S): the environment's own
# site-packages, and their .pth files (an editable install's import finder, which may run the
# project's code), come only now, as Python's start would have added them.
if os.environ.get("CODEHEAL_SITE"):  # kept: the candidate's process starts with the same site
    import site  # noqa: E402

    _BEFORE = set(sys.path)
    site.main()
    _PATH += [p for p in sys.path if p not in _BEFORE and p not in _PATH]

import pytest  # noqa: E402

sys.path[:] = _PATH

if __name__ == "__main__":
    raise SystemExit(pytest.main(sys.argv[1:], plugins=[codeheal_report]))
