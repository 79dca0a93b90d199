import pytest

assert to_roman(1) == "I"
assert to_roman(4) == "IV"
assert to_roman(9) == "IX"
assert to_roman(14) == "XIV"
assert to_roman(1994) == "MCMXCIV"
assert to_roman(3999) == "MMMCMXCIX"


def test_out_of_range():
    for bad in (0, -5, 4000):
        with pytest.raises(ValueError):
            to_roman(bad)
