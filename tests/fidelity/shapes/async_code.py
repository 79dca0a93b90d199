"""Coroutines and async generators, driven by the tests with asyncio.run inside sync tests."""

from functools import partial

from tests.fidelity.shapes import shape

S = partial(shape, "async_code")

SHAPES = [
    S("asyncio_run_coroutine", """
        import asyncio

        def test_fetch_double():
            assert asyncio.run(double_later(21)) == 42
        """, """
        import asyncio

        async def double_later(x):
            await asyncio.sleep(0)
            return x * 2
        """, """
        import asyncio

        async def double_later(x):
            await asyncio.sleep(0)
            return x + 2
        """),
    S("gather_results", """
        import asyncio

        def test_gather_order():
            assert asyncio.run(fetch_all([3, 1, 2])) == [9, 1, 4]
        """, """
        import asyncio

        async def fetch_one(n):
            await asyncio.sleep(n / 1000)
            return n * n

        async def fetch_all(ns):
            return list(await asyncio.gather(*(fetch_one(n) for n in ns)))
        """, """
        import asyncio

        async def fetch_one(n):
            await asyncio.sleep(n / 1000)
            return n * n

        async def fetch_all(ns):
            done = []
            for task in asyncio.as_completed([fetch_one(n) for n in ns]):
                done.append(await task)
            return done
        """),
    S("async_generator_collect", """
        import asyncio

        async def collect(agen):
            return [x async for x in agen]

        def test_async_gen():
            assert asyncio.run(collect(ticker(3))) == [0, 1, 2]
        """, """
        import asyncio

        async def ticker(n):
            for i in range(n):
                await asyncio.sleep(0)
                yield i
        """, """
        import asyncio

        async def ticker(n):
            for i in range(1, n + 1):
                await asyncio.sleep(0)
                yield i
        """),
    S("is_coroutine_function", """
        import asyncio
        import inspect

        def test_is_async():
            assert inspect.iscoroutinefunction(load)
            assert asyncio.run(load("k")) == "value of k"
        """, """
        async def load(key):
            return f"value of {key}"
        """, """
        def load(key):
            return f"value of {key}"
        """),
    S("timeout_wait_for", """
        import asyncio
        import pytest

        def test_slow_times_out():
            with pytest.raises(asyncio.TimeoutError):
                asyncio.run(with_timeout(asyncio.sleep(1), 0.01))

        def test_fast_returns():
            async def quick():
                return 5
            assert asyncio.run(with_timeout(quick(), 1)) == 5
        """, """
        import asyncio

        async def with_timeout(awaitable, seconds):
            return await asyncio.wait_for(awaitable, seconds)
        """, """
        import asyncio

        async def with_timeout(awaitable, seconds):
            try:
                return await asyncio.wait_for(awaitable, seconds)
            except asyncio.TimeoutError:
                return None
        """),
    S("async_context_manager", """
        import asyncio

        def test_async_with():
            async def main():
                log = []
                async with Session(log) as s:
                    log.append(s.name)
                return log
            assert asyncio.run(main()) == ["open", "session", "close"]
        """, """
        class Session:
            def __init__(self, log):
                self.log, self.name = log, "session"

            async def __aenter__(self):
                self.log.append("open")
                return self

            async def __aexit__(self, *exc):
                self.log.append("close")
        """, """
        class Session:
            def __init__(self, log):
                self.log, self.name = log, "session"

            async def __aenter__(self):
                self.log.append("open")
                return self

            async def __aexit__(self, *exc):
                self.log.insert(0, "close")
        """),
    S("async_queue_worker", """
        import asyncio

        def test_worker_drains_queue():
            async def main():
                q = asyncio.Queue()
                for n in (1, 2, 3):
                    q.put_nowait(n)
                return await drain(q)
            assert asyncio.run(main()) == 6
        """, """
        async def drain(queue):
            total = 0
            while not queue.empty():
                total += await queue.get()
                queue.task_done()
            return total
        """, """
        async def drain(queue):
            total = await queue.get()
            queue.task_done()
            return total
        """),
    S("async_raises", """
        import asyncio
        import pytest

        def test_async_error():
            with pytest.raises(LookupError, match="user 9"):
                asyncio.run(get_user(9))

        def test_found():
            assert asyncio.run(get_user(1)) == {"id": 1}
        """, """
        USERS = {1: {"id": 1}}

        async def get_user(uid):
            if uid not in USERS:
                raise LookupError(f"no user {uid}")
            return USERS[uid]
        """, """
        USERS = {1: {"id": 1}}

        async def get_user(uid):
            return USERS.get(uid)
        """),
    S("async_method_on_class", """
        import asyncio

        def test_client_get():
            client = Client()
            assert asyncio.run(client.get("/a")) == "GET /a"
            assert client.calls == 1
        """, """
        class Client:
            def __init__(self):
                self.calls = 0

            async def get(self, path):
                self.calls += 1
                return f"GET {path}"
        """, """
        class Client:
            def __init__(self):
                self.calls = 0

            async def get(self, path):
                return f"GET {path}"
        """),
    S("semaphore_limit", """
        import asyncio

        def test_max_concurrency():
            assert asyncio.run(peak_concurrency(10, limit=3)) == 3
        """, """
        import asyncio

        async def peak_concurrency(n, limit):
            gate = asyncio.Semaphore(limit)
            running = peak = 0

            async def job():
                nonlocal running, peak
                async with gate:
                    running += 1
                    peak = max(peak, running)
                    await asyncio.sleep(0.001)
                    running -= 1

            await asyncio.gather(*(job() for _ in range(n)))
            return peak
        """, """
        import asyncio

        async def peak_concurrency(n, limit):
            running = peak = 0

            async def job():
                nonlocal running, peak
                running += 1
                peak = max(peak, running)
                await asyncio.sleep(0.001)
                running -= 1

            await asyncio.gather(*(job() for _ in range(n)))
            return peak
        """),
    S("async_callback_passed_in", """
        import asyncio

        def test_awaits_callback():
            async def fetch(x):
                await asyncio.sleep(0)
                return x + 1
            assert asyncio.run(map_async(fetch, [1, 2])) == [2, 3]
        """, """
        async def map_async(func, items):
            return [await func(item) for item in items]
        """, """
        async def map_async(func, items):
            return [await func(item) for item in items[::-1]]
        """),
    S("event_loop_new", """
        import asyncio

        def test_with_new_loop():
            loop = asyncio.new_event_loop()
            try:
                assert loop.run_until_complete(add_async(2, 3)) == 5
            finally:
                loop.close()
        """, """
        async def add_async(a, b):
            return a + b
        """, """
        async def add_async(a, b):
            return a * b
        """),
    S("create_task_cancel", """
        import asyncio

        def test_cancel_returns_flag():
            assert asyncio.run(cancel_after(0.001)) is True
        """, """
        import asyncio

        async def cancel_after(delay):
            task = asyncio.create_task(asyncio.sleep(10))
            await asyncio.sleep(delay)
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                return True
            return False
        """, """
        import asyncio

        async def cancel_after(delay):
            task = asyncio.create_task(asyncio.sleep(0))
            await asyncio.sleep(delay)
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                return True
            return False
        """),
    S("async_generator_aclose", """
        import asyncio

        def test_anext():
            async def main():
                gen = numbers_from(5)
                first = await gen.__anext__()
                second = await anext(gen)
                await gen.aclose()
                return first, second
            assert asyncio.run(main()) == (5, 6)
        """, """
        async def numbers_from(n):
            while True:
                yield n
                n += 1
        """, """
        async def numbers_from(n):
            while True:
                n += 1
                yield n
        """),
    S("async_sorted_results", """
        import asyncio

        def test_sorted_by_delay():
            assert asyncio.run(sleep_sort([3, 1, 2])) == [1, 2, 3]
        """, """
        import asyncio

        async def sleep_sort(values):
            out = []

            async def one(v):
                await asyncio.sleep(v / 100)
                out.append(v)

            await asyncio.gather(*(one(v) for v in values))
            return out
        """, """
        import asyncio

        async def sleep_sort(values):
            out = []

            async def one(v):
                out.append(v)
                await asyncio.sleep(v / 100)

            await asyncio.gather(*(one(v) for v in values))
            return out
        """),
    S("async_lock_counter", """
        import asyncio

        def test_lock_protects_counter():
            assert asyncio.run(safe_increments(50)) == 50
        """, """
        import asyncio

        async def safe_increments(n):
            lock = asyncio.Lock()
            count = 0

            async def inc():
                nonlocal count
                async with lock:
                    value = count
                    await asyncio.sleep(0)
                    count = value + 1

            await asyncio.gather(*(inc() for _ in range(n)))
            return count
        """, """
        import asyncio

        async def safe_increments(n):
            count = 0

            async def inc():
                nonlocal count
                value = count
                await asyncio.sleep(0)
                count = value + 1

            await asyncio.gather(*(inc() for _ in range(n)))
            return count
        """),
    S("await_future_result", """
        import asyncio

        def test_future_set_later():
            assert asyncio.run(resolved_later("done")) == "done"
        """, """
        import asyncio

        async def resolved_later(value):
            future = asyncio.get_running_loop().create_future()
            asyncio.get_running_loop().call_soon(future.set_result, value)
            return await future
        """, """
        import asyncio

        async def resolved_later(value):
            future = asyncio.get_running_loop().create_future()
            asyncio.get_running_loop().call_soon(future.set_result, value.upper())
            return await future
        """),
    S("async_iterator_class", """
        import asyncio

        def test_async_for_class():
            async def main():
                return [x async for x in AsyncRange(3)]
            assert asyncio.run(main()) == [0, 1, 2]
        """, """
        class AsyncRange:
            def __init__(self, n):
                self.i, self.n = 0, n

            def __aiter__(self):
                return self

            async def __anext__(self):
                if self.i >= self.n:
                    raise StopAsyncIteration
                self.i += 1
                return self.i - 1
        """, """
        class AsyncRange:
            def __init__(self, n):
                self.i, self.n = 0, n

            def __aiter__(self):
                return self

            async def __anext__(self):
                if self.i > self.n:
                    raise StopAsyncIteration
                self.i += 1
                return self.i - 1
        """),
    S("run_in_executor_blocking", """
        import asyncio

        def test_offload_blocking():
            assert asyncio.run(checksum_async(b"abc")) == 294
        """, """
        import asyncio

        def checksum(data):
            return sum(data)

        async def checksum_async(data):
            return await asyncio.get_running_loop().run_in_executor(None, checksum, data)
        """, """
        import asyncio

        def checksum(data):
            return sum(data) % 256

        async def checksum_async(data):
            return await asyncio.get_running_loop().run_in_executor(None, checksum, data)
        """),
    S("async_retry_backoff", """
        import asyncio

        def test_retries_async():
            attempts = []

            async def flaky():
                attempts.append(1)
                if len(attempts) < 2:
                    raise OSError("try again")
                return "ok"

            assert asyncio.run(retry_async(flaky, tries=3, delay=0)) == "ok"
            assert len(attempts) == 2
        """, """
        import asyncio

        async def retry_async(func, tries, delay):
            for attempt in range(tries):
                try:
                    return await func()
                except OSError:
                    if attempt == tries - 1:
                        raise
                    await asyncio.sleep(delay)
        """, """
        import asyncio

        async def retry_async(func, tries, delay):
            for attempt in range(tries):
                try:
                    return await func()
                except OSError:
                    await asyncio.sleep(delay)
                    return await func() if attempt else None
        """),
]
