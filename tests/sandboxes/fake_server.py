"""A local stand-in for E2B that the unmodified SDK talks to over real HTTP.

It speaks the wire protocols the SDK uses (the control-plane REST API, envd's HTTP
`/files` and `/health`, envd's Connect-RPC process service, the code interpreter's NDJSON
`/execute`) and really runs what it is asked to, in a temporary root directory on this
machine, so the feedback codeheal builds from it is real.

Each sandbox has a root of its own (`/home/user/x` -> `<root>/<sandbox id>/home/user/x`), and
HOME is its `/home/user`, as in E2B. Commands run as `bash -c` with the test interpreter's
directory first on PATH (the `-l` the SDK asks for is dropped: a login shell would reset PATH
from /etc/profile). Killing a sandbox ends every process started in it, also those that left
their process group, as the end of a VM does (they carry E2B_SANDBOX_ID, which E2B also sets).
"""

from __future__ import annotations

import asyncio
import email.parser
import email.policy
import json
import os
import signal
import socket
import sys
import tempfile
import threading
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import uvicorn
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from e2b.envd.process import process_connect, process_pb
from protobuf import Oneof
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

HOME = "/home/user"
DEBUG_SANDBOX_ID = "debug_sandbox_id"
API_KEY = "e2b_fake_test_key"
SANDBOX_ID_ENV = "E2B_SANDBOX_ID"
KILL_AFTER_S = 0.5
"""With `kill_during_command`, how long a command runs before its sandbox is killed."""


@dataclass
class Record:
    """What the fake saw, for tests to assert on."""

    created: list[str] = field(default_factory=list)
    killed: list[str] = field(default_factory=list)
    commands: list[tuple[str, str]] = field(default_factory=list)
    """(script, working directory) of every command started."""
    create_requests: list[dict] = field(default_factory=list)


class FakeE2B:
    """The fake's state and its ASGI application."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._processes: dict[int, tuple[str, asyncio.subprocess.Process]] = {}
        self.reset()
        self._rest = Starlette(routes=[
            Route("/v2/sandboxes", self._create, methods=["POST"]),
            Route("/sandboxes/{sandbox_id}", self._kill, methods=["DELETE"]),
            Route("/health", self._health, methods=["GET"]),
            Route("/files", self._write, methods=["POST"]),
            Route("/files", self._read, methods=["GET"]),
            Route("/execute", self._execute, methods=["POST"]),
        ])
        self._rpc = process_connect.ProcessASGIApplication(_ProcessService(self))

    def reset(self) -> None:
        """A clean record and no scripted faults."""
        self.record = Record()
        self.alive: set[str] = {DEBUG_SANDBOX_ID}
        self.host_path(".", DEBUG_SANDBOX_ID).mkdir(parents=True, exist_ok=True)
        self.create_statuses: list[int] = []
        """Statuses to answer the next sandbox creations with before one succeeds (e.g. 429)."""
        self.kill_during_command = False
        """Kill the sandbox once a command has run for KILL_AFTER_S, as when E2B ends a sandbox."""

    @property
    def running(self) -> int:
        """How many commands are running now."""
        return len(self._processes)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and not scope["path"].startswith(("/v2/sandboxes", "/sandboxes/")):
            headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
            sandbox_id = headers.get("e2b-sandbox-id", DEBUG_SANDBOX_ID)
            if sandbox_id not in self.alive:
                await _not_found(sandbox_id)(scope, receive, send)
                return
            scope.setdefault("state", {})["sandbox_id"] = sandbox_id
            if scope["path"].startswith("/process.Process/"):
                await self._rpc(scope, receive, send)
                return
        await self._rest(scope, receive, send)

    def host_path(self, path: str, sandbox_id: str) -> Path:
        """Where a sandbox path lives on this machine."""
        posix = PurePosixPath(HOME) / path
        return self.root / sandbox_id / posix.relative_to("/")

    def kill_sandbox(self, sandbox_id: str) -> None:
        self.alive.discard(sandbox_id)
        for owner, proc in list(self._processes.values()):
            if owner == sandbox_id:
                _kill_group(proc.pid)
        _kill_tagged(sandbox_id)

    # control plane

    async def _create(self, request: Request) -> Response:
        if request.headers.get("x-api-key") != API_KEY:
            return JSONResponse({"code": 401, "message": "Invalid API key"}, status_code=401)
        if self.create_statuses:
            status = self.create_statuses.pop(0)
            return JSONResponse(
                {"code": status, "message": "fake refusal"}, status_code=status,
                headers={"Retry-After": "0"},
            )
        body = await request.json()
        self.record.create_requests.append(body)
        sandbox_id = "fake" + uuid.uuid4().hex[:12]
        self.alive.add(sandbox_id)
        self.host_path(".", sandbox_id).mkdir(parents=True)
        self.record.created.append(sandbox_id)
        return JSONResponse({
            "templateID": body["templateID"], "sandboxID": sandbox_id,
            "clientID": "fakeclient", "envdVersion": "0.5.7",
        }, status_code=201)

    async def _kill(self, request: Request) -> Response:
        sandbox_id = request.path_params["sandbox_id"]
        if sandbox_id not in self.alive:
            return JSONResponse({"code": 404, "message": f"sandbox {sandbox_id} not found"}, status_code=404)
        self.kill_sandbox(sandbox_id)
        self.record.killed.append(sandbox_id)
        return Response(status_code=204)

    # envd

    async def _health(self, request: Request) -> Response:
        return Response(status_code=204)

    async def _write(self, request: Request) -> Response:
        sandbox_id = request.scope["state"]["sandbox_id"]
        body = await request.body()
        content_type = request.headers["content-type"]
        if content_type.startswith("multipart/form-data"):
            message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
                b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body
            )
            files = [(part.get_filename(), part.get_payload(decode=True)) for part in message.iter_parts()]
        else:
            files = [(request.query_params["path"], body)]
        written = []
        for name, data in files:
            target = self.host_path(name, sandbox_id)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            absolute = str(PurePosixPath(HOME) / name)
            written.append({"name": PurePosixPath(name).name, "type": "file", "path": absolute})
        return JSONResponse(written)

    async def _read(self, request: Request) -> Response:
        sandbox_id = request.scope["state"]["sandbox_id"]
        target = self.host_path(request.query_params["path"], sandbox_id)
        if not target.is_file():
            return JSONResponse({"code": 404, "message": f"path '{target.name}' does not exist"}, status_code=404)
        return Response(target.read_bytes(), media_type="application/octet-stream")

    async def _execute(self, request: Request) -> Response:
        """The code interpreter's NDJSON stream: run the code, report like Jupyter does."""
        body = await request.json()
        workdir = self.host_path(".", request.scope["state"]["sandbox_id"])
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", body["code"], cwd=workdir,
            env={**_base_env(workdir), **(body.get("env_vars") or {})},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        out, err = await proc.communicate()

        async def lines() -> AsyncIterator[str]:
            yield json.dumps({"type": "number_of_executions", "execution_count": 1}) + "\n"
            if out:
                yield json.dumps({"type": "stdout", "text": out.decode(), "timestamp": 0}) + "\n"
            if proc.returncode:
                name, _, value = err.decode().strip().splitlines()[-1].partition(": ")
                traceback = err.decode().replace(name, f"\x1b[0;31m{name}\x1b[0m")
                yield json.dumps({"type": "error", "name": name, "value": value, "traceback": traceback}) + "\n"
            yield json.dumps({"type": "end_of_execution"}) + "\n"

        return StreamingResponse(lines(), media_type="application/x-ndjson")

    # process service helpers

    async def run_process(self, request: process_pb.StartRequest, sandbox_id: str) -> AsyncIterator[process_pb.StartResponse]:
        config = request.process
        script = config.args[-1]
        self.record.commands.append((script, config.cwd or ""))
        cwd = self.host_path(config.cwd or ".", sandbox_id)
        if not cwd.is_dir():
            raise ConnectError(Code.INVALID_ARGUMENT, f"cwd '{config.cwd}' does not exist")
        proc = await asyncio.create_subprocess_exec(
            "/bin/bash", "-c", script, cwd=cwd,
            env={**_base_env(self.host_path(".", sandbox_id)), SANDBOX_ID_ENV: sandbox_id, **dict(config.envs)},
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, start_new_session=True,
        )
        self._processes[proc.pid] = (sandbox_id, proc)
        try:
            yield _event("start", process_pb.ProcessEvent.StartEvent(pid=proc.pid))
            queue: asyncio.Queue[tuple[str, bytes] | None] = asyncio.Queue()
            pumps = [
                asyncio.ensure_future(_pump(proc.stdout, "stdout", queue)),
                asyncio.ensure_future(_pump(proc.stderr, "stderr", queue)),
            ]
            killer = asyncio.ensure_future(self._kill_later(sandbox_id)) if self.kill_during_command else None
            open_streams = 2
            while open_streams:
                item = await queue.get()
                if item is None:
                    open_streams -= 1
                    continue
                name, chunk = item
                yield _event("data", process_pb.ProcessEvent.DataEvent(output=Oneof(name, chunk)))
            await asyncio.gather(*pumps)
            code = await proc.wait()
            if sandbox_id not in self.alive:
                raise ConnectError(Code.UNAVAILABLE, "the connection to the sandbox ended before the stream completed")
            if killer:
                killer.cancel()
            status = f"exit status {code}" if code >= 0 else f"signal: {signal.Signals(-code).name[3:].lower()}"
            yield _event("end", process_pb.ProcessEvent.EndEvent(
                exit_code=code if code >= 0 else -1, exited=code >= 0, status=status,
            ))
        finally:
            self._processes.pop(proc.pid, None)
            if proc.returncode is None:
                _kill_group(proc.pid)

    async def _kill_later(self, sandbox_id: str) -> None:
        await asyncio.sleep(KILL_AFTER_S)
        self.kill_during_command = False
        self.kill_sandbox(sandbox_id)

    def signal_process(self, pid: int) -> None:
        if pid not in self._processes:
            raise ConnectError(Code.NOT_FOUND, f"process with pid {pid} not found")
        _kill_group(pid)


class _ProcessService(process_connect.Process):
    """The handlers of envd's `process.Process` service that the SDK's commands use."""

    def __init__(self, fake: FakeE2B) -> None:
        self.fake = fake

    def start(self, request: process_pb.StartRequest, ctx) -> AsyncIterator[process_pb.StartResponse]:
        sandbox_id = ctx.request_headers.get("e2b-sandbox-id", DEBUG_SANDBOX_ID)
        return self.fake.run_process(request, sandbox_id)

    async def send_signal(self, request: process_pb.SendSignalRequest, ctx) -> process_pb.SendSignalResponse:
        self.fake.signal_process(request.process.selector.value)
        return process_pb.SendSignalResponse()


def _event(kind: str, payload) -> process_pb.StartResponse:
    return process_pb.StartResponse(event=process_pb.ProcessEvent(event=Oneof(kind, payload)))


async def _pump(stream: asyncio.StreamReader, name: str, queue: asyncio.Queue) -> None:
    while chunk := await stream.read(65536):
        await queue.put((name, chunk))
    await queue.put(None)


def _not_found(sandbox_id: str) -> Response:
    """What E2B's proxy answers for a sandbox that was killed or timed out."""
    return JSONResponse(
        {"code": 502, "message": f"The sandbox {sandbox_id} was not found", "sandboxId": sandbox_id},
        status_code=502,
    )


def _base_env(workdir: Path) -> dict[str, str]:
    return {
        "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(workdir),
        "LANG": "C.UTF-8",
    }


def _kill_tagged(sandbox_id: str) -> None:
    """Kill every process of this machine that was started in sandbox `sandbox_id`."""
    tag = f"{SANDBOX_ID_ENV}={sandbox_id}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            tagged = tag in (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if tagged:
            try:
                os.kill(int(entry.name), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class FakeServer:
    """The fake served by uvicorn on a free loopback port, in a background thread."""

    def __init__(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="fake-e2b-")
        self.fake = FakeE2B(Path(self._tmp.name))
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self.port = self._socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(self.fake, log_level="warning", lifespan="off", ws="none")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True)

    def start(self) -> FakeServer:
        self._thread.start()
        while not self._server.started:
            if not self._thread.is_alive():
                raise RuntimeError("the fake E2B server did not start")
            threading.Event().wait(0.02)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._socket.close()
        self._tmp.cleanup()
