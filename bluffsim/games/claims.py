"""What a game's ``odds`` module shares (below the games): the answer kinds to a standing claim
and the exact-arithmetic helpers the odds are computed with (``bluffsim.analysis.odds`` is the
contract that reads them)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

# how a decision answers the standing claim (``Claims.responses`` of each game's odds module)
DOUBT, AFFIRM, EXACT, PASS = "doubt", "affirm", "exact", "pass"


def ints(a: Any) -> np.ndarray:
    """``a`` as int64 (observation rows are int8: sums must not wrap)."""
    return np.asarray(a, dtype=np.int64)


def ratio(num: int, den: int) -> Fraction:
    """num / den as an exact fraction (0 for an empty denominator)."""
    return Fraction(num, den) if den else Fraction(0)


__all__ = ["AFFIRM", "DOUBT", "EXACT", "PASS", "ints", "ratio"]
