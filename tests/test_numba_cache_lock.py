"""numba's on-disk cache under concurrent compiles (``bluffsim.numba_sources.lock_cache_index``).

Two processes that compile different signatures of one cached kernel at once (a pool playing
tables of two player counts, two xdist workers) must not pick the same data file: the second
saver waits until the first has written its index entry and data, then takes the next file.
"""

from __future__ import annotations

import threading
import time

from numba.core.caching import IndexDataCacheFile

import bluffsim  # noqa: F401  (installs the lock)


def test_a_second_saver_waits_and_each_signature_keeps_its_own_data(tmp_path, monkeypatch):
    """Saver A has read the (empty) index and is paused; saver B, with its own handle on the
    same cache, must wait (unlocked it would also pick data file 1, and one signature would then
    load the other's machine code or be lost); once A finishes, both entries load their own
    data."""
    original = IndexDataCacheFile._load_index
    a_read, a_go = threading.Event(), threading.Event()

    def load_index_pausing_a(self):  # noqa: ANN001, ANN202
        overloads = original(self)
        if threading.current_thread().name == "A" and not a_read.is_set():
            a_read.set()
            a_go.wait(10)
        return overloads

    monkeypatch.setattr(IndexDataCacheFile, "_load_index", load_index_pausing_a)
    files = [IndexDataCacheFile(str(tmp_path), "kernel-12", "stamp") for _ in range(3)]
    a = threading.Thread(target=files[0].save, args=(("int64",), "machine code for int64"),
                         name="A")
    b = threading.Thread(target=files[1].save, args=(("float64",), "machine code for float64"),
                         name="B")
    a.start()
    assert a_read.wait(10)
    b.start()
    time.sleep(0.5)
    assert b.is_alive(), "the second saver did not wait for the first"
    a_go.set()
    a.join(10)
    b.join(10)
    assert files[2].load(("int64",)) == "machine code for int64"
    assert files[2].load(("float64",)) == "machine code for float64"
    assert len(list(tmp_path.glob("kernel-12.*.nbc"))) == 2
