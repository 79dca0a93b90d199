"""A test's own time limit (forms/project/time_limits.py, evaluation/clock.py) holds in E2B as
locally: the limits travel as a job file, and the test process stops itself past one."""

from __future__ import annotations

import time

from fake_server import FakeE2B

from codeheal.evaluation.feedback import run_feedback
from codeheal.forms.project.job import project_job
from codeheal.forms.project.task import parse_test_command
from codeheal.sandboxes.e2b import E2BSandbox

FILES = {
    "calc.py": "def inside(x):\n    while x == 5:\n        pass\n    return x\n",
    "tests/test_calc.py": "from calc import inside\n\n\ndef test_fast():\n    assert inside(1) == 1\n\n\n"
                          "def test_inside():\n    assert inside(5) == 5\n",
}


def test_a_test_past_its_own_limit_stops_the_run_in_e2b(api_env, fake: FakeE2B):
    job = project_job(FILES, parse_test_command("python -m pytest -q tests"), 30,
                      test_limits={"tests/test_calc.py::test_inside": 1.0, "tests/test_calc.py::test_fast": 1.0})
    started = time.perf_counter()
    result = E2BSandbox().run(job)
    feedback = run_feedback(result, None)
    assert time.perf_counter() - started < 15 and result.seconds < 10, "stopped at the test's 1 s, not the run's 30 s"
    assert feedback["timed_out"] and feedback["passed_count"] == 1
    assert feedback["error"] == "timed out: test_inside ran past its own limit of 1 s"
