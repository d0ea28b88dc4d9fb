"""Statistics (CIs, head-to-head, ratings, bluff metrics) and plots of tournament results.

Data preparation (``stats``) is kept apart from drawing (``plots``): every plot
takes a prepared DataFrame and returns a matplotlib Figure.
"""

from bluffsim.analysis.seats import bluff_table
from bluffsim.analysis.stats import (
    bradley_terry,
    convergence,
    head_to_head,
    placement_distribution,
    summary,
    wilson_interval,
)

__all__ = ["bluff_table", "bradley_terry", "convergence", "head_to_head",
           "placement_distribution", "summary", "wilson_interval"]
