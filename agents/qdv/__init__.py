"""qdv agents: ``heuristic`` (rules of thumb) and ``counting`` (exact posterior of the count)."""
