"""Output files of a sweep, each written whole or not at all (a temp file beside it, then
renamed), as every neuronsim output is (docs/limits.md)."""
import os
import tempfile

from .. import Error


def write_atomic(path, data):
    """Writes str or bytes to `path`, or "-" to standard output."""
    if path == "-":
        import sys
        (sys.stdout.buffer.write(data) if isinstance(data, bytes) else sys.stdout.write(data))
        sys.stdout.flush()
        return
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    except OSError as e:
        raise Error(f"{path}: cannot write: {e.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        os.replace(tmp, path)
    except OSError as e:
        os.unlink(tmp)
        raise Error(f"{path}: cannot write: {e.strerror}") from None
