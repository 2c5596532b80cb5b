"""Where a sweep's points run: Dask (Debian's python3-distributed).

By default an embedded LocalCluster of one single-threaded worker process per core of
this machine (a point traces NKI kernels in Python, whose tracer is one per process);
with `scheduler` ("tcp://HOST:PORT") an existing Dask cluster, whose workers need only
neuronsim installed (every file a point names travels with it, spec.py). A worker that
dies takes only the points it was running: the scheduler gives them to another worker
(Dask reschedules a lost task up to distributed.scheduler.allowed-failures times, 3 by
default; a point that has killed that many workers gets an error row).
"""
import contextlib
import logging
import os

from .. import Error
from . import point as point_run


def _distributed():
    try:
        import distributed
    except ImportError:
        raise Error("neuronsim sweep runs its points on Dask, which this Python lacks: "
                    "apt-get install python3-distributed") from None
    return distributed


@contextlib.contextmanager
def client(scheduler=None, workers=None):
    """A dask.distributed Client on `scheduler` (an address, or a Client to reuse), or on a
    local cluster of `workers` processes (default: this machine's cores)."""
    distributed = _distributed()
    if isinstance(scheduler, distributed.Client):  # the caller's, left open
        if workers is not None:
            raise Error("sweep: workers sizes a local cluster, not a given client's")
        yield scheduler
        return
    if scheduler is not None:
        try:
            c = distributed.Client(scheduler, timeout="20s")
        except (OSError, TimeoutError) as e:
            raise Error(f"cannot reach the Dask scheduler {scheduler}: {e}") from None
        with c:
            yield c
        return
    n = os.cpu_count() if workers is None else int(workers)
    if n < 1:
        raise Error(f"a local cluster needs at least one worker, not {n}")
    with distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", silence_logs=logging.ERROR) as cluster, \
            distributed.Client(cluster) as c:
        yield c


def run(c, points, cached_keys, on_done):
    """Runs every point on the client's cluster; calls on_done(outcome) as each finishes
    (in completion order) and returns the outcomes by index."""
    distributed = _distributed()
    # One object (scatter spreads a collection it is given item by item).
    [keys] = c.scatter([cached_keys], broadcast=True, hash=False)
    futures = {c.submit(point_run.run, p, keys, pure=False,
                        key=f"neuronsim-sweep-point-{p.index}-{os.urandom(4).hex()}"): p
               for p in points}
    outcomes = {}
    for future in distributed.as_completed(futures):
        p = futures[future]
        try:
            outcome = future.result()
        except distributed.KilledWorker:
            outcome = {"index": p.index, "key": None, "status": "error", "wall_s": 0.0,
                       "host": "", "error": "the point's worker died on every attempt"}
        outcomes[p.index] = outcome
        on_done(outcome)
    return outcomes
