"""Layering (issue 14 point 6): playing never imports plotting; reports are built by ``analysis``."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def modules_after(statement: str) -> set[str]:
    """The ``sys.modules`` names after running ``statement`` in a fresh interpreter."""
    code = f"import sys\n{statement}\nprint('\\n'.join(sys.modules))"
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          cwd=ROOT, check=True, timeout=120)
    return set(done.stdout.split())


def test_importing_the_runner_does_not_import_matplotlib() -> None:
    """``bluffsim.tournament.runner`` (and the tournament package) load without matplotlib."""
    mods = modules_after("import bluffsim.tournament.runner\nimport bluffsim.tournament")
    assert "bluffsim.tournament.runner" in mods
    assert not {m for m in mods if m.split(".")[0] == "matplotlib"}
    assert "bluffsim.analysis.plots" not in mods


def test_the_report_is_built_by_analysis() -> None:
    """``build_report`` is ``bluffsim.analysis.report``'s (the tournament re-exports it)."""
    from bluffsim.analysis import report
    from bluffsim.tournament import build_report
    from bluffsim.tournament.experiment import report_tables

    assert build_report is report.build_report
    assert report_tables is report.report_tables


# ---------------------------------------------------------------- the layer rules, from the imports
# Every module of bluffsim/ and agents/ has a place in one table, lowest tier first.  A module may
# import a module of a lower tier, or of its own group; groups sharing a tier (e.g. adapters and
# analysis) may not import each other.  A name is a module (exact) or a package with everything
# under it ("x.*"); the most specific name wins (an exact name over a package).  Imports are
# read with ``ast`` from every file, those inside functions and ``if TYPE_CHECKING:`` blocks
# included; ``importlib`` strings are not.
LAYERS: tuple[dict[str, tuple[str, ...]], ...] = (
    {"core": ("bluffsim.api", "bluffsim.rng", "bluffsim.rng_nb", "bluffsim.bits_nb",
              "bluffsim.fmath", "bluffsim.options", "bluffsim.numba_sources")},
    {"game base": ("bluffsim.games", "bluffsim.games.spec", "bluffsim.games.compiled",
                   "bluffsim.games.encoding", "bluffsim.games.obsspec", "bluffsim.games.obscompile",
                   "bluffsim.games.records",
                   "bluffsim.games.refbase", "bluffsim.games.seating", "bluffsim.games.display",
                   "bluffsim.games.claims",
                   "bluffsim.games.drivers", "bluffsim.text.base", "bluffsim.text.words")},
    {"games": ("bluffsim.games.*",)},
    {"registry": ("bluffsim",)},
    {"text protocol": ("bluffsim.text.*",), "chat client": ("bluffsim.chat_client",)},
    {"agents": ("agents.*",)},
    {"results I/O": ("bluffsim.results",), "kernel cache": ("bluffsim.kernel_cache",)},
    {"adapters": ("bluffsim.adapters.*",), "analysis": ("bluffsim.analysis.*",)},
    {"tournament": ("bluffsim.tournament.*",)},
    {"terminal play": ("bluffsim.play",), "bench": ("benchmarks.*",),
     "learn": ("bluffsim.learn.*",)},
    {"evaluate": ("bluffsim.evaluate", "bluffsim.abr", "bluffsim.plateau")},
    {"replay": ("bluffsim.replay.*",), "serve": ("bluffsim.web.*",)},
    {"cli": ("bluffsim.cli",)},
)
# (importer, imported, why) on top of the tiers: packages matched as above, external ones by name
FORBIDDEN: tuple[tuple[str, str, str], ...] = (
    ("bluffsim.tournament.*", "bluffsim.analysis.plots", "the runner imports no plotting"),
    ("bluffsim.tournament.*", "matplotlib.*", "the runner imports no plotting"),
    ("bluffsim.adapters.*", "bluffsim.tournament.*", "adapters import no tournament internals"),
    ("bluffsim.analysis.*", "bluffsim.tournament.*", "analysis reads results through "
     "bluffsim.results, never the runner"),
    ("bluffsim.games.*", "bluffsim.play", "the games sit below the terminal front end"),
)
# matplotlib only where plots are drawn
MATPLOTLIB_USERS = ("bluffsim.analysis.*", "bluffsim.evaluate", "bluffsim.abr", "bluffsim.plateau",
                    "bluffsim.cli")


def _module_files() -> dict[str, Path]:
    out = {}
    for pkg in ("bluffsim", "agents", "benchmarks"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """Every module ``name`` imports (anywhere in the file): a known module (the longest known
    prefix of what is imported; ``from p import m`` is ``p.m`` when that is a module) or, for
    other packages, the dotted name as written."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.update(f"{module}.{a.name}" if f"{module}.{a.name}" in known else module
                         for a in node.names)
    out = set()
    for imported in found:
        parts = imported.split(".")
        prefixes = [".".join(parts[:i]) for i in range(len(parts), 0, -1)]
        out.add(next((p for p in prefixes if p in known), imported))
    out.discard(name)
    return out


def import_graph() -> dict[str, set[str]]:
    known = _module_files()
    return {name: _imports(name, path, known) for name, path in known.items()}


def _matches(module: str, pattern: str) -> bool:
    """``pattern`` is the module itself, or ``x.*``: the package ``x`` and everything under it."""
    if pattern.endswith(".*"):
        return module == pattern[:-2] or module.startswith(pattern[:-1])
    return module == pattern


def layer_of(module: str) -> tuple[int, str] | None:
    """(tier, group) of ``module`` by the most specific entry of ``LAYERS``."""
    best = None
    for tier, groups in enumerate(LAYERS):
        for group, patterns in groups.items():
            for pattern in patterns:
                if _matches(module, pattern):
                    rank = (not pattern.endswith(".*"), len(pattern))
                    if best is None or rank > best[0]:
                        best = (rank, (tier, group))
    return None if best is None else best[1]


def _own_package(module: str) -> str | None:
    """``qdv`` for ``bluffsim.games.qdv.rules`` or ``agents.qdv.counting``: the game a module
    belongs to, or None."""
    parts = module.split(".")
    if parts[:2] == ["bluffsim", "games"] and len(parts) > 2 and layer_of(module)[1] == "games":
        return parts[2]
    if parts[0] == "agents" and len(parts) > 2:
        return parts[1]
    return None


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    bad = [f"{m}: not in LAYERS (give it a tier)" for m in graph if layer_of(m) is None]
    for importer, imported in sorted(graph.items()):
        mine = layer_of(importer)
        for dep in sorted(imported):
            theirs = layer_of(dep) if dep in graph else None
            if mine and theirs and not (theirs[0] < mine[0] or theirs[1] == mine[1]):
                bad.append(f"{importer} ({mine[1]}) imports {dep} ({theirs[1]}): upward or "
                           "sideways")
            for a, b, why in FORBIDDEN:
                if _matches(importer, a) and _matches(dep, b):
                    bad.append(f"{importer} imports {dep}: {why}")
            if dep.split(".")[0] == "matplotlib" and not any(_matches(importer, p)
                                                           for p in MATPLOTLIB_USERS):
                bad.append(f"{importer} imports {dep}: matplotlib only where plots are drawn")
            game, other = _own_package(importer), _own_package(dep) if dep in graph else None
            if game and other and other != game:
                bad.append(f"{importer} imports {dep}: a game's modules import no other game's")
    return bad


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (as a path) per back edge a depth-first search over the module graph finds."""
    cycles, state, stack = [], {}, []

    def visit(m: str) -> None:
        state[m] = "open"
        stack.append(m)
        for dep in sorted(graph[m]):
            if dep not in graph:
                continue
            if state.get(dep) == "open":
                cycles.append([*stack[stack.index(dep):], dep])
            elif dep not in state:
                visit(dep)
        stack.pop()
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m)
    return cycles


def test_the_import_graph_sees_every_kind_of_import() -> None:
    """Relative, ``from x import y`` (module or name) and in-function imports are all read."""
    graph = import_graph()
    assert "bluffsim.games.qdv.rules" in graph["agents.qdv.heuristic"]
    assert "bluffsim.analysis.report" in graph["bluffsim.tournament.experiment"]
    assert "bluffsim.games.qdv.observe" in graph["bluffsim.games.qdv.reference"]   # in a method
    assert len(graph) > 60


def test_imports_follow_the_layers() -> None:
    """Imports point down the ``LAYERS`` table and break none of the ``FORBIDDEN`` rules."""
    assert layer_violations(import_graph()) == []


def test_no_import_cycles() -> None:
    """No module imports itself through others (a depth-first search over the whole graph)."""
    assert import_cycles(import_graph()) == []
