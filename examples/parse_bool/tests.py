import pytest

assert parse_bool("yes") is True
assert parse_bool("No") is False
assert parse_bool(" TRUE ") is True
assert parse_bool("off") is False
assert parse_bool("1") is True


def test_anything_else_is_a_value_error():
    with pytest.raises(ValueError):
        parse_bool("maybe")
