"""The compiled side of a game's ``ObservationSpec``, written from the spec: numba source of
``observe_row`` (from the fields), ``tensor_row`` (from the blocks), their batch loops
``observe_kernel`` / ``tensor_kernel``, with the game's batch kernels (``drivers.KERNELS`` with its
rule functions), in one committed file per game: ``kernels_generated.py`` beside its
``kernels.py``.

A game's ``kernels.py`` declares ``OBS_SIZES`` (every named size of the spec as the compiled
code reads it: an ``int`` for a constant, or an expression over the rules record ``r``,
``"r.num_players"``; ``CompiledGame`` checks it against ``spec.sizes(rules)`` for every game it
builds), ``OBS_BOUNDS`` (the largest value of each of those expressions: the observation record's
size, ``ObservationSpec.record_dtype``) and ``DRIVERS`` (its rule functions where they differ from
``drivers.DRIVER_DEFAULTS``), and answers the generated names from ``kernels_generated`` on
first use (its module ``__getattr__``: ``lazy_generated``).  The generated module imports the
rule functions it calls from ``kernels``, so both are plain modules a debugger steps through
(``NUMBA_DISABLE_JIT=1``), nothing is executed into a namespace, and numba caches the kernels
from a real file.  ``bluffsim games [GAME] --generate`` writes the files again
after a change to a spec, ``OBS_SIZES``, ``DRIVERS`` or this generator;
``tests/test_obscompile.py`` fails while a committed file differs from what it writes.  Why
generated source rather than a compiled interpreter: ``obsspec``'s docstring.
``bluffsim games <game> --source`` prints a game's generated module.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
import symtable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from bluffsim.games.obsspec import Block, Copy, Custom, Field, ObservationSpec, OneHot, Seat, Seats

Sizes = dict[str, int | str]


class _Writer:
    """Indented source lines."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 0

    def __call__(self, line: str) -> None:
        self.lines.append("    " * self.depth + line)


def _n(d: str | int, sizes: Sizes) -> str:
    """The compiled text of one dimension: a literal, or the local ``n_<name>``."""
    if isinstance(d, int):
        return str(d)
    v = sizes[d]
    return str(v) if isinstance(v, int) else f"n_{d}"


def _cast(dtype: str, text: str) -> str:
    """``text`` converted as numpy stores it in a field of ``dtype``."""
    if dtype == "bool":
        return f"(1 if {text} else 0)"
    return f"np.{dtype}({text})"


class _Source:
    """The generated module of one spec (``source``)."""

    def __init__(self, spec: ObservationSpec, ns: dict[str, Any], sizes: Sizes):
        self.spec, self.ns, self.sizes = spec, ns, sizes
        self.fields = {f.name: f for f in spec.fields}
        self.state, self.hot = ns["STATE_DTYPE"], ns["HOT_DTYPE"]
        if "P" not in sizes:
            raise ValueError("OBS_SIZES needs 'P' (the seats)")
        missing = {d for f in spec.fields for d in f.dims if isinstance(d, str)} | {
            d for b in spec.blocks for d in b.dims if isinstance(d, str)}
        if missing - set(sizes):
            raise ValueError(f"OBS_SIZES lacks {sorted(missing - set(sizes))}")

    # ------------------------------------------------------------ field values
    def _check_field(self, f: Field) -> None:
        """A sourced field's record field exists and has the field's item size."""
        w = f.where()
        if w is None:
            if f"obs_{f.name}" not in self.ns:
                raise ValueError(f"computed observation field {f.name!r}: kernels defines no "
                                 f"obs_{f.name}(g, h, r, seat, ...)")
            return
        rec = self.state if w[0] == "data" else self.hot
        if w[1] not in rec.names:
            raise ValueError(f"field {f.name!r}: {w[0]} record has no field {w[1]!r}")
        base = rec.fields[w[1]][0].base
        if base.itemsize != np.dtype(f.dtype).itemsize:
            raise ValueError(f"field {f.name!r}: {f.dtype} read from {w[0]}.{w[1]} ({base})")

    def value(self, f: Field, idx: list[str], guarded: bool = False) -> str:
        """The compiled text of field ``f`` at index ``idx`` (a value of the field's dtype);
        ``guarded``: an observer's-row field where ``seat >= 0`` is known."""
        w = f.where()
        if w is None:
            return _cast(f.dtype, f"obs_{f.name}(g, h, r, seat{''.join(', ' + i for i in idx)})")
        rec, name, row = w
        obj = "g" if rec == "data" else "h"
        ix = (["seat"] if row else []) + idx
        text = f"{obj}.{name}" + (f"[{', '.join(ix)}]" if ix else "")
        base = (self.state if rec == "data" else self.hot).fields[name][0].base
        if base.kind != np.dtype(f.dtype).kind and f.dtype != "bool":
            text = _cast(f.dtype, text)
        if row and not guarded:
            text = f"({text} if seat >= 0 else 0)"
        return text

    @staticmethod
    def record_value(f: Field, idx: list[str]) -> str:
        """The compiled text of field ``f`` at index ``idx`` in the observation record ``obs``
        (``ObservationSpec.record_dtype``, filled by ``observe_row``)."""
        return f"obs.{f.name}" + (f"[{', '.join(idx)}]" if idx else "")

    # ------------------------------------------------------------ observe_row
    def observe_row(self, out: _Writer) -> None:
        """``observe_row``: every field of the spec into one observation record."""
        out("@njit(cache=True)")
        out("def observe_row(g, h, r, obs):")
        out.depth += 1
        out('"""The current player\'s observation of one game (records ``g``, ``h``) into the '
            'record ``obs`` (``ObservationSpec.record_dtype``): every field of the spec, the one '
            'place the compiled policies read a game from (generated from the spec\'s fields)."""')
        self._size_locals(out)
        out("seat = np.int64(h.current_player)")
        for f in self.spec.fields:
            self._fill_field(out, f)
        out.depth -= 1

    def _fill_field(self, out: _Writer, f: Field) -> None:
        """Every value of field ``f`` into the record ``obs``; an observer's row
        (``data.<x>[seat]``) is zeros once the game is over."""
        w = f.where()
        if w is not None and w[2]:
            out("if seat >= 0:")
            out.depth += 1
            self._fill(out, f, guarded=True)
            out.depth -= 1
            out("else:")
            out.depth += 1
            self._fill(out, f, zero=True)
            out.depth -= 1
        else:
            self._fill(out, f)

    def _fill(self, out: _Writer, f: Field, guarded: bool = False, zero: bool = False) -> None:
        """``obs.<name>[...] = value`` over the field's shape (booleans stored as uint8)."""
        idx = [f"i{k}" for k in range(len(f.dims))]
        for i, d in zip(idx, f.dims, strict=True):
            out(f"for {i} in range({_n(d, self.sizes)}):")
            out.depth += 1
        value = "0" if zero else self.value(f, idx, guarded)
        if f.dtype == "bool" and not zero:
            value = f"np.uint8({value})"
        out(f"{self.record_value(f, idx)} = {value}")
        out.depth -= len(idx)

    # ------------------------------------------------------------ tensor_row
    def _size_locals(self, out: _Writer) -> None:
        for name, v in self.sizes.items():
            if not isinstance(v, int):
                out(f"n_{name} = np.int64({v})")

    def tensor_row(self, out: _Writer) -> None:
        """``tensor_row``: the blocks in order, each from its encoding."""
        out("@njit(cache=True)")
        out("def tensor_row(obs, r, x):")
        out.depth += 1
        out('"""The flat observation tensor of one observation record ``obs`` (``observe_row``) '
            'into the zeroed float32 row ``x``: ``observe.SPEC``\'s blocks in order (generated '
            'from them; equal to ``SPEC.to_tensor``)."""')
        self._size_locals(out)
        out("seat = np.int64(obs.seat)")
        out("me = max(seat, 0)")
        out("o = 0")
        for b in self.spec.blocks:
            out(f"# {b.name}: {type(b.encode).__name__}")
            self._block(out, b)
        out.depth -= 1

    def _width(self, b: Block) -> str:
        parts = [_n(d, self.sizes) for d in b.dims]
        return " * ".join(parts) if parts else "1"

    def _scalar(self, e: Copy | OneHot | Seat) -> tuple[Field, str]:
        """(field, value text) of a scalar encoding (a scalar field, or one column)."""
        f = self.fields[e.field]
        if e.col is None:
            if f.dims:
                raise ValueError(f"{type(e).__name__}({e.field!r}) of a non-scalar field")
            return f, self.record_value(f, [])
        if len(f.dims) != 1:
            raise ValueError(f"{type(e).__name__}({e.field!r}, col=...) of a field that is not 1-D")
        return f, self.record_value(f, [str(int(e.col))])

    def _block(self, out: _Writer, b: Block) -> None:
        e, width = b.encode, self._width(b)
        if isinstance(e, OneHot):
            out(f"o = DR.one_hot(x, o, np.int64({self._scalar(e)[1]}), {width})")
        elif isinstance(e, Seat):
            out(f"o = DR.rel_seat(x, o, np.int64({self._scalar(e)[1]}), me, n_P)")
        elif isinstance(e, Custom):
            if e.builder not in self.ns:
                raise ValueError(f"block {b.name!r}: kernels defines no builder {e.builder!r}")
            out(f"{e.builder}(obs, r, x, o)")
            out(f"o += {width}")
        elif isinstance(e, Copy):
            self._copy(out, b, e, width)
        elif isinstance(e, Seats):
            self._seats(out, b, e, width)
        else:
            raise TypeError(f"block {b.name!r}: no compiled form of {type(e).__name__}")

    @staticmethod
    def _transform(e: Copy | Seats, v: str) -> str:
        floor, equals = getattr(e, "floor", None), getattr(e, "equals", None)
        if floor is None and not e.add and equals is None:
            return v
        t = f"np.int64({v})"
        if floor is not None:
            t = f"max({t}, {int(floor)})"
        if e.add:
            t = f"{t} + {int(e.add)}"
        if equals is not None:
            t = f"(1.0 if {t} == {int(equals)} else 0.0)"
        return t

    def _loops(self, out: _Writer, f: Field, dims: tuple, e: Copy | Seats,
               lead: tuple[str, str] | None = None) -> None:
        """Loops over ``dims`` (index names ``i..``), writing ``x[o + flat index]``; ``lead``:
        (position, field index) of an enclosing loop's axis that comes first (``Seats``)."""
        idx = [f"i{k}" for k in range(len(dims))]
        for i, d in zip(idx, dims, strict=True):
            out(f"for {i} in range({_n(d, self.sizes)}):")
            out.depth += 1
        pos = lead[0] if lead else ""  # the flat index in C order
        for i, d in zip(idx, dims, strict=True):
            pos = i if not pos else f"({pos}) * {_n(d, self.sizes)} + {i}"
        v = self._transform(e, self.record_value(f, [*(lead[1:] if lead else ()), *idx]))
        out(f"x[o + {pos or '0'}] = {v}")
        out.depth -= len(idx)

    def _copy(self, out: _Writer, b: Block, e: Copy, width: str) -> None:
        f = self.fields[e.field]
        if e.col is not None:
            _, v = self._scalar(e)
            out(f"x[o] = {self._transform(e, v)}")
        else:
            self._loops(out, f, f.dims, e)
        out(f"o += {width}")

    def _seats(self, out: _Writer, b: Block, e: Seats, width: str) -> None:
        f = self.fields[e.field]
        if not f.dims or f.dims[0] != "P":
            raise ValueError(f"Seats({e.field!r}): the field's first axis is not 'P'")
        out("for j in range(n_P):")
        out.depth += 1
        out("s = (me + j) % n_P")
        self._loops(out, f, f.dims[1:], e, lead=("j", "s"))
        out.depth -= 1
        out(f"o += {width}")

    # ------------------------------------------------------------ the module
    def source(self) -> str:
        """The observation kernels' source (``observe_row``, ``tensor_row``, ``tensor_kernel``,
        ``observe_kernel``), without imports."""
        for f in self.spec.fields:
            self._check_field(f)
        out = _Writer()
        self.observe_row(out)
        out("")
        out("")
        self.tensor_row(out)
        out("")
        out("")
        out("@njit(cache=True)")
        out("def tensor_kernel(data, hot, rules, obs, out):")
        out('    """The flat observation tensor of every game into ``out`` (zeroed float32[B, D]), '
            'row by row: ``observe_row`` into the one-element record array ``obs``, then '
            '``tensor_row``."""')
        out("    DR.tensor_loop(observe_row, tensor_row, data, hot, rules, obs, out)")
        out("")
        out("")
        out("@njit(cache=True)")
        out("def observe_kernel(data, hot, rules, obs):")
        out('    """Every game\'s observation into its record ``obs[b]`` (``observe_row``)."""')
        out("    DR.observe_loop(observe_row, data, hot, rules, obs)")
        return "\n".join(out.lines) + "\n"


def source(spec: ObservationSpec, ns: dict[str, Any], sizes: Sizes) -> str:
    """The observation kernels of ``spec`` for the kernels namespace ``ns`` (module docstring),
    without imports."""
    return _Source(spec, ns, sizes).source()


GENERATED = "kernels_generated.py"   # beside a game's kernels.py
GENERATED_NAMES = ("observe_row", "tensor_row", "tensor_kernel", "observe_kernel", "step_kernel",
                   "start_kernel", "mask_kernel", "play_random_kernel")
_HEADER_NAMES = {"np", "njit", "DR"}


def generated_source(kernels: ModuleType, spec: ObservationSpec | None = None) -> str:
    """The text of a game's ``kernels_generated.py``: the observation kernels from its
    ``observe.SPEC`` and ``kernels.OBS_SIZES``, the batch kernels from ``drivers.KERNELS`` with
    its ``kernels.DRIVERS`` rule functions, and the imports of every name of ``kernels`` they
    call (``spec``: another observation spec in place of ``observe.SPEC``)."""
    from bluffsim.games import drivers

    ns = vars(kernels)
    if spec is None:
        spec = importlib.import_module(kernels.__name__.rsplit(".", 1)[0] + ".observe").SPEC
    body = (source(spec, ns, kernels.OBS_SIZES) + "\n\n"
            + drivers.KERNELS.format(**{**drivers.DRIVER_DEFAULTS, **kernels.DRIVERS}))
    defined = {n.name for n in ast.parse(body).body if isinstance(n, ast.FunctionDef)}
    used = _global_names(symtable.symtable(body, "kernels_generated", "exec"))
    needed = sorted(used - defined - _HEADER_NAMES - set(dir(builtins)))
    missing = [n for n in needed if n not in ns]
    if missing:
        raise ValueError(f"{kernels.__name__} defines no {', '.join(missing)} (the generated "
                         "kernels call them)")
    head = [f'"""The compiled batch kernels of {kernels.__name__.rsplit(".", 1)[0]}, generated by',
            "``bluffsim games --generate`` from its observation spec (``observe.SPEC``)",
            "and its rule functions (``kernels.py``): do not edit; ``tests/test_obscompile.py``",
            'checks that it is current."""', "",
            *(["import numpy as np"] if "np" in used else []), "from numba import njit", "",
            "from bluffsim.games import drivers as DR", *_import_lines(kernels.__name__, needed)]
    return "\n".join(head) + "\n\n\n" + body.rstrip("\n") + "\n"


def _global_names(table: symtable.SymbolTable) -> set[str]:
    """The global names a module's functions (and the module itself) read."""
    found = {sym.get_name() for sym in table.get_symbols()
             if sym.is_referenced() and (sym.is_global() or table.get_type() == "module")}
    for child in table.get_children():
        found |= _global_names(child)
    return found


def _import_lines(module: str, names: list[str]) -> list[str]:
    """``from module import (a, b, ...)`` in lines of at most 100 characters, names sorted as
    ruff's isort sorts them (constants, classes, then the rest)."""
    order = sorted(names, key=lambda n: (0 if n.isupper() else 1 if n[:1].isupper() else 2, n))
    lines, line = [f"from {module} import ("], "   "
    for n in order:
        if len(line) + len(n) + 2 > 100:
            lines.append(line)
            line = "   "
        line += f" {n},"
    return [*lines, line, ")"]


def generated_path(kernels: ModuleType) -> Path:
    """Where a game's generated kernels live: ``kernels_generated.py`` beside its kernels."""
    return Path(kernels.__file__).with_name(GENERATED)


def write_generated(kernels: ModuleType) -> bool:
    """Write a game's ``kernels_generated.py`` from its sources; whether it changed."""
    path, text = generated_path(kernels), generated_source(kernels)
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True


def import_generated(text: str, path: Path, name: str) -> ModuleType:
    """Import ``text`` written to ``path`` as a module named ``name`` (tests compile a changed
    spec this way, beside the real kernels)."""
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def lazy_generated(package: str, name: str) -> Any:
    """A name of ``package``'s generated kernels, imported on first use: what a game's
    ``kernels`` module answers for the generated names (its module ``__getattr__``), so that
    the generated module, which imports the rule functions from ``kernels``, can be imported
    first or second."""
    if name not in GENERATED_NAMES:
        raise AttributeError(f"module {package}.kernels has no attribute {name!r}")
    return getattr(importlib.import_module(f"{package}.kernels_generated"), name)


def check_sizes(spec: ObservationSpec, sizes: Sizes, bounds: dict[str, int], rules: Any,
                record: np.ndarray) -> None:
    """Raise ``ValueError`` unless ``sizes`` (``OBS_SIZES``) read from the rules record
    ``record`` (``rules_record(rules)``) equal ``spec.sizes(rules)``, every size that varies
    with the rules has a bound (``OBS_BOUNDS``) and none exceeds it."""
    r = record.view(np.recarray)[0]
    want = spec.sizes(rules)
    got = {k: v if isinstance(v, int) else int(eval(v, {"np": np}, {"r": r}))  # noqa: S307
           for k, v in sizes.items()}
    if any(got.get(k) != v for k, v in want.items()):
        raise ValueError(f"the kernels' OBS_SIZES give {got}, the observation spec {want}")
    unbounded = sorted(k for k, v in sizes.items() if not isinstance(v, int) and k not in bounds)
    if unbounded:
        raise ValueError(f"the kernels' OBS_BOUNDS lack {unbounded}")
    over = {k: v for k, v in want.items() if v > bounds.get(k, v)}
    if over:
        raise ValueError(f"sizes {over} exceed the kernels' OBS_BOUNDS {bounds}")

