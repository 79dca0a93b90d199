"""tests/project: the fixture projects under fixtures/ are data (their own tests fail on
purpose), never collected as this repository's tests."""

collect_ignore = ["fixtures"]
