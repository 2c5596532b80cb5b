"""neuronsim.sweep on a real Dask cluster (docs/sweeps.md): a `dask-scheduler` and two
`dask-worker` processes on loopback (free ports the scheduler picks, its address read
from its scheduler file), as a user's cluster would be. The rows equal the local run's;
then one worker is killed (SIGKILL) while it runs a point: only that point is lost, the
scheduler gives it to the other worker (or the one its nanny restarts) and the rows are
still the local run's. Every process is in a session of its own and killed on the way
out, failed or not; the whole test has a time budget (BUDGET_S)."""
import json
import os
import signal
import subprocess
import sys
import threading
import time

import neuronsim
from support import SCRATCH, Checks

BUDGET_S = 150


def main():
    c = Checks()
    started = []


    def stop_all():
        for p in started:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()


    def out_of_time(signum, frame):
        stop_all()
        sys.exit(f"FAIL: over the {BUDGET_S} s budget")


    signal.signal(signal.SIGALRM, out_of_time)
    signal.alarm(BUDGET_S)


    def start(*args):
        log = open(os.path.join(SCRATCH, f"{args[0]}-{len(started)}.log"), "w")
        p = subprocess.Popen(list(args), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        started.append(p)
        return p


    def wait_for(what, test, seconds=30):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            value = test()
            if value:
                return value
            time.sleep(0.1)
        raise RuntimeError(f"timed out waiting for {what}")


    try:
        import distributed

        scheduler_file = os.path.join(SCRATCH, "scheduler.json")
        start("dask-scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
              "--scheduler-file", scheduler_file)
        wait_for("the scheduler file", lambda: os.path.exists(scheduler_file))
        for name in ("w1", "w2"):
            start("dask-worker", "--scheduler-file", scheduler_file, "--host", "127.0.0.1",
                  "--nthreads", "1", "--nworkers", "1", "--no-dashboard", "--name", name)
        with open(scheduler_file) as f:
            address = json.load(f)["address"]
        c.check(address.startswith("tcp://127.0.0.1:"), f"the scheduler listens on loopback: {address}")
        client = distributed.Client(address, timeout="20s")
        wait_for("two workers", lambda: len(client.scheduler_info()["workers"]) == 2)

        spec = {"kernel": {"example": "rmsnorm", "rows": [256, 1024], "cols": [512, 2048],
                           "buffers": [1, 2]}, "targets": ["trn1", "trn2"]}
        local = neuronsim.sweep(spec, cache=False, workers=1)
        remote = neuronsim.sweep(spec, cache=False, scheduler=address)
        c.check(remote.workers == 2, f"the sweep ran on the cluster's two workers: {remote.workers}")
        c.check(remote.rows == local.rows and remote.table.to_csv() == local.table.to_csv(),
                "the cluster's rows are the local run's, byte for byte")
        hosts = {o["host"] for o in remote.outcomes.values()}
        c.check(len(remote.outcomes) == 16 and hosts, f"16 outcomes from {hosts}")

        # Kill a worker in the middle of a point. Longer points (about 0.2 s each) leave time
        # to see one running.
        spec_long = {"kernel": {"example": "rmsnorm", "rows": [4096, 8192], "cols": [4096, 8192],
                                "buffers": [1, 2, 4]}, "targets": ["trn2"]}
        local_long = neuronsim.sweep(spec_long, cache=False, workers=2)
        result = {}
        sweep = threading.Thread(target=lambda: result.update(
            r=neuronsim.sweep(spec_long, cache=False, scheduler=address)))
        sweep.start()

        def busy_worker():
            for addr, tasks in client.processing().items():
                if any(str(t).startswith("neuronsim-sweep-point-") for t in tasks):
                    return addr
            return None

        victim = wait_for("a worker running a point", busy_worker)
        pid = client.run(os.getpid, workers=[victim])[victim]
        os.kill(pid, signal.SIGKILL)
        sweep.join(BUDGET_S)
        c.check(not sweep.is_alive() and "r" in result, "the sweep finished after a worker died")
        if "r" in result:
            r = result["r"]
            c.check(r.failed == 0 and len(r.rows) == 12, f"no point lost: {r.summary()}")
            c.check(r.rows == local_long.rows, "the rows are still the local run's")
        c.check(wait_for("the worker gone", lambda: victim not in client.scheduler_info()["workers"]),
                "the killed worker left the cluster")
        client.close()
    finally:
        signal.alarm(0)
        stop_all()
    c.finish()


# The local cluster's worker processes are spawned: they import this file again (Dask's
# own rule for scripts, docs/sweeps.md).
if __name__ == "__main__":
    main()
