"""``--set key=value`` overrides of any config key, applied to the raw TOML before validation.

A key is the dotted path of the value in the TOML file: ``rules.jokers``,
``experiment.games``, ``run.permute``, ``seats.1.params.bluff`` (list entries by
0-based index), ``pool.3.agent``, ``sweep.rules.jokers``, ``sweep.mode``.  The value
is read as a TOML value (``3``, ``0.3``, ``true``, ``"text"``, ``[0, 1, 2]``,
``{ bluff = 0.3 }``); a value that is not valid TOML is taken as a plain string
(``--set experiment.name=smoke``).  The result is validated exactly like the file.
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Sequence
from typing import Any

from bluffsim.tournament.config import ConfigError


def parse_value(text: str) -> Any:
    """A ``--set`` value: a TOML value, or the text itself when it is not one."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def split_key(key: str) -> list[str | int]:
    """``"seats.1.params.bluff"`` -> ``["seats", 1, "params", "bluff"]``."""
    parts = key.strip().split(".")
    if not key.strip() or any(p.strip() == "" for p in parts):
        raise ConfigError(f"--set {key!r}: write a dotted key such as rules.jokers or "
                          "seats.1.params.bluff")
    return [int(p) if p.isdigit() else p.strip() for p in parts]


def apply_sets(raw: dict[str, Any], sets: Sequence[str]) -> dict[str, Any]:
    """A copy of the raw config with every ``key=value`` of ``sets`` applied in order."""
    out = copy.deepcopy(raw)
    for item in sets:
        key, sep, text = item.partition("=")
        if not sep:
            raise ConfigError(f"--set {item!r}: write KEY=VALUE, e.g. --set rules.jokers=0")
        set_key(out, key, parse_value(text.strip()), f"--set {key.strip()}")
    return out


def set_key(raw: dict[str, Any], key: str, value: Any, what: str) -> None:
    """Set the dotted ``key`` of ``raw`` to ``value`` (missing tables are created)."""
    path = split_key(key)
    node: Any = raw
    for i, part in enumerate(path):
        last = i == len(path) - 1
        where = ".".join(str(p) for p in path[: i + 1])
        if isinstance(node, list):
            if not isinstance(part, int) or not 0 <= part < len(node):
                raise ConfigError(f"{what}: {'.'.join(str(p) for p in path[:i]) or 'config'} has "
                                  f"{len(node)} entries (0..{len(node) - 1}); {part!r} is not one")
            if last:
                node[part] = value
            else:
                node = node[part]
            continue
        if not isinstance(node, dict):
            raise ConfigError(f"{what}: {'.'.join(str(p) for p in path[:i])} is a value, not a table")
        part = str(part)
        if last:
            node[part] = value
        else:
            if part not in node:
                node[part] = {}
            node = node[part]
            if not isinstance(node, dict | list):
                raise ConfigError(f"{what}: {where} is a value, not a table")
