"""Snapshot, pickling and slicing shared by the compiled engines' states.

A compiled engine keeps each game in two record arrays, ``data`` and ``hot``
(the fields read every step), and exposes the public ``State`` fields as views
of them; ``from_data(data, hot, rules)`` builds those views (a field is the record
column of its name — ``legal_action_mask`` is ``hot["mask"]`` — in ``hot`` if that has
it, cut to the rules' sizes by the class's ``cuts(rules)`` and viewed as bool when named
in ``BOOL_FIELDS``). Copies, pickles and sub-batches therefore only need to copy the
two records.

Without the JIT (``NUMBA_DISABLE_JIT=1``, to step through a kernel in a debugger) the kernels
run as plain Python on these arrays; ``kernel_records`` then views them with rows of
``KernelRow``, which read and write fields as attributes (``h.seed``) like a numba record does.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, ClassVar

import numba
import numpy as np


class KernelRow(np.record):
    """One row of a record array, its fields read and written as attributes, as numba's records
    are (a field named like a numpy attribute, e.g. ``strides``, is the field)."""

    def __getattribute__(self, name: str) -> Any:
        if name in np.void.__getattribute__(self, "dtype").fields:
            return self[name]
        return super().__getattribute__(name)


def kernel_records(records: np.ndarray) -> np.ndarray:
    """A record array as the kernels index it: itself when compiled; when numba's JIT is
    disabled, a view whose rows are ``KernelRow``s."""
    if not numba.config.DISABLE_JIT or records.dtype.type is KernelRow:
        return records
    return records.view(np.dtype((KernelRow, records.dtype)))


class RecordState:
    """Mixin for a ``State`` dataclass held in ``data`` and ``hot`` records with a ``from_data``
    classmethod; put it before ``State`` in the bases."""

    data: np.ndarray
    hot: np.ndarray
    rules: Any
    BOOL_FIELDS: ClassVar[frozenset[str]] = frozenset()
    SOURCE: ClassVar[dict[str, str]] = {"legal_action_mask": "mask"}

    @classmethod
    def cuts(cls, rules: Any) -> dict[str, tuple[int, ...]]:
        """Per field, the lengths its per-game axes are cut to (records are sized for the
        largest table); fields not named keep their full shape."""
        return {}

    @classmethod
    def from_data(cls, data: np.ndarray, hot: np.ndarray, rules: Any) -> Any:
        """The state whose fields are views of the record arrays ``data`` and ``hot``."""
        cuts = cls.cuts(rules)
        data, hot = kernel_records(data), kernel_records(hot)
        views = {}
        for f in fields(cls):  # type: ignore[arg-type]
            if f.name in ("data", "hot", "rules"):
                continue
            src = cls.SOURCE.get(f.name, f.name)
            v = (hot if src in hot.dtype.names else data)[src]
            if f.name in cuts:
                v = v[(slice(None), *(slice(0, n) for n in cuts[f.name]))]
            views[f.name] = v.view(np.bool_) if f.name in cls.BOOL_FIELDS else v
        return cls(**views, data=data, hot=hot, rules=rules)

    def copy(self) -> Any:
        """A deep snapshot: later steps on ``self`` do not change it."""
        return self.from_data(self.data.copy(), self.hot.copy(), self.rules)

    def __deepcopy__(self, memo: dict) -> Any:
        return self.copy()

    def __getstate__(self) -> dict:
        return {"data": self.data, "hot": self.hot, "rules": self.rules}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(vars(self.from_data(state["data"], state["hot"], state["rules"])))

    def take(self, index: Any) -> Any:
        """The sub-batch at ``index`` (a copy), e.g. ``state.take([3])`` for game 3 alone."""
        return self.from_data(np.atleast_1d(self.data[index]).copy(),
                              np.atleast_1d(self.hot[index]).copy(), self.rules)

    def nbytes(self) -> int:
        """Bytes held by the state (its two record arrays)."""
        return int(self.data.nbytes + self.hot.nbytes)
