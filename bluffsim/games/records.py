"""Snapshot, pickling and slicing shared by the compiled engines' states.

A compiled engine keeps each game in two record arrays, ``data`` and ``hot``
(the fields read every step), and exposes the public ``State`` fields as views
of them; ``from_data(data, hot, rules)`` rebuilds those views. Copies, pickles
and sub-batches therefore only need to copy the two records.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class RecordState:
    """Mixin for a ``State`` dataclass held in ``data`` and ``hot`` records with a ``from_data``
    classmethod; put it before ``State`` in the bases."""

    data: np.ndarray
    hot: np.ndarray
    rules: Any

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
