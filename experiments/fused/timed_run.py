"""``bluffsim run``, timed end to end, on the fused or the stepped path (agents/fused.py).

    python experiments/fused/timed_run.py fused|stepped CONFIG [bluffsim run options] --out DIR

Prints the decisions played (from ``games.parquet``), the wall and CPU seconds of the whole
process (imports, play, merge, report) and decisions per second of each.  ``stepped``
sets the runner's private ``_USE_FUSED = False`` (one worker: the runner runs in this
process).  Run it from the repository root, ``nice``d, alternating the two paths.
"""

import json
import pathlib
import resource
import sys
import time

t0 = time.perf_counter()

from bluffsim.cli import main  # noqa: E402
from bluffsim.tournament import runner  # noqa: E402

mode = sys.argv[1]
if mode not in ("fused", "stepped"):
    sys.exit(__doc__)
runner._USE_FUSED = mode == "fused"
try:
    main(["run", *sys.argv[2:]])
except SystemExit as e:
    if e.code:
        raise
wall = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_SELF)
cpu = ru.ru_utime + ru.ru_stime

import pandas as pd  # noqa: E402

out = pathlib.Path(sys.argv[sys.argv.index("--out") + 1])
games = pd.read_parquet(out / "games.parquet")
decisions = int(games.groupby("game")["decisions"].first().sum())
timing = json.loads((out / "manifest.json").read_text()).get("timing", {})
print(f"{mode}: {decisions} decisions, wall {wall:.2f} s, cpu {cpu:.2f} s, "
      f"{decisions / wall:,.0f}/s wall, {decisions / cpu:,.0f}/s cpu, "
      f"play {timing.get('play_seconds')} s")
