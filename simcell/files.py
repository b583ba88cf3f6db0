"""Writing a file so that readers see the old file or the whole new one, never part of it (the run
directory's files and the report's), with one-line errors a user can act on."""

from __future__ import annotations

import errno
import os
from pathlib import Path


class WriteError(Exception):
    """A file that could not be written: the message names it and says why in one line."""


def write_error(path: Path, exc: OSError, error: type[Exception] = WriteError) -> Exception:
    """The one-line error of a failed write of `path`, as an `error`."""
    if exc.errno == errno.ENOSPC:
        return error(f"disk full writing {path}; finished chunks are kept: free space and "
                     "continue with --resume")
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return error(f"cannot write {path}: {exc.strerror}")
    if exc.errno in (errno.ENOTDIR, errno.EEXIST):
        return error(f"cannot write {path}: a part of the path is a file, not a directory")
    return error(f"writing {path} failed: {exc}")


def write_atomic(path: Path, data: bytes, error: type[Exception] = WriteError) -> None:
    """Write `data` to `path` through a temporary file and a rename; a failure raises `error`
    (write_error's message) and leaves no temporary file."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise write_error(path, exc, error) from exc
