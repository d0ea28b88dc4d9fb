"""Load a script of ``experiments/`` (not a package) as a module, for its tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"


def load_script(relative: str) -> ModuleType:
    """The module of ``experiments/<relative>`` (registered in ``sys.modules`` under its
    file stem, so pickling and dataclasses inside it work)."""
    path = EXPERIMENTS / relative
    name = path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
