"""The sweep cache: a point's simulated figures by the hash of what determines them.

The key (point.py) is the SHA-256 of the kernel as built (the NEFF, or every file of a
compiled program), the target's fully resolved config (`neuronsim config --dump` with the
point's overrides), the run's options and the simulator's version: a point whose kernel,
config and simulator are unchanged is not run again, whatever spec it came from; any
change to one of them runs it. One file per key, written whole (temp then rename) as
each point finishes, so an interrupted sweep resumes where it stopped.
"""
import json
import os
import tempfile

from .. import Error


class Cache:
    """A directory of <key>.json files, or None (no cache: every point runs)."""

    def __init__(self, directory):
        self.directory = None if directory is None else os.fspath(directory)
        if self.directory is not None:
            try:
                os.makedirs(self.directory, exist_ok=True)
            except OSError as e:
                raise Error(f"{self.directory}: cannot create the sweep cache: {e.strerror}") from None

    def keys(self):
        """The keys held (what a worker may skip)."""
        if self.directory is None:
            return frozenset()
        return frozenset(n[:-len(".json")] for n in os.listdir(self.directory)
                         if n.endswith(".json") and len(n) == 64 + len(".json"))

    def _path(self, key):
        return os.path.join(self.directory, key + ".json")

    def get(self, key):
        """The figures stored for `key`."""
        path = self._path(key)
        try:
            with open(path) as f:
                return json.load(f)
        except (OSError, json.JSONDecodeError) as e:
            raise Error(f"{path}: unreadable sweep cache entry ({e}); delete it to rerun "
                        "its point") from None

    def put(self, key, figures):
        if self.directory is None:
            return
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=self.directory)
        with os.fdopen(fd, "w") as f:
            json.dump(figures, f, sort_keys=True)
        os.replace(tmp, self._path(key))
