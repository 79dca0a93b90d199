"""codeheal's way into pytest, copied into each sandbox workspace as codeheal_pytest.py and
run as `python -m codeheal_pytest PYTEST_ARGS`: it imports codeheal's report plugin and
registers it with pytest before pytest reads any configuration, so the plugin and everything
it binds come before the project's `addopts`, plugins and conftest files."""

import sys

import codeheal_report
import pytest

if __name__ == "__main__":
    raise SystemExit(pytest.main(sys.argv[1:], plugins=[codeheal_report]))
