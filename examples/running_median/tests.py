import random
import time

assert running_median([]) == []
assert running_median([5]) == [5.0]
assert running_median([2, 1, 5, 7, 2, 0, 5]) == [2.0, 1.5, 2.0, 3.5, 2.0, 2.0, 2.0]
assert running_median([1, 2, 3, 4]) == [1.0, 1.5, 2.0, 2.5]


def test_fast_enough():
    values = [random.random() for _ in range(100_000)]
    started = time.perf_counter()
    result = running_median(values)
    assert time.perf_counter() - started < 1.0
    assert len(result) == len(values)
