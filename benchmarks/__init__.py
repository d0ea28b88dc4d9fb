"""The research benchmark harnesses, apart from the library: ``engines`` (what ``bluffsim bench``
runs: engine and agent throughput against the OpenSpiel anchors, several cores, memory).

``bluffsim bench`` is the thin command in front of it; the measurements and how they were made
are in ``docs/bench.md``.
"""
