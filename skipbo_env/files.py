"""Writing files whole, never through a link, never over what a run did not make.

Every file the package writes for a user (model cards, value networks, benchmark results)
goes through `write_whole`: the bytes go to a temporary file created exclusively beside the
target (a fresh random name, so no planted file or link is written through), then replace the
target in one rename, so a reader sees the old file or the new one, never half of either. A
target that is a symbolic link is refused (a rename would replace the link, and a link there
was put there on purpose by someone); an existing target is replaced only when the caller says
so (`replace=True`), which commands leave to an explicit ``--force``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from typing import IO


class FileRefused(ValueError):
    """A target `write_whole` will not write: a link, or a file there already."""


def check_target(path: str, replace: bool = False) -> None:
    """Refuse `path` as a target of `write_whole` before any work is done: FileRefused if it is
    a symbolic link, or (unless `replace`) if something is there already."""
    if os.path.islink(path):
        raise FileRefused(f"{path} is a symbolic link: refusing to write through or over it")
    if os.path.lexists(path):
        if os.path.isdir(path):
            raise FileRefused(f"{path} is a directory")
        if not replace:
            raise FileRefused(f"{path} exists already: refusing to replace it (give --force "
                              f"to replace it, or write elsewhere)")


def write_whole(path: str, body: str | bytes | Callable[[IO[bytes]], None],
                replace: bool = False) -> None:
    """Write `body` (text, bytes, or a function that writes to a binary file) to `path` whole
    (module docstring); FileRefused as `check_target`, OSError if the folder cannot be written
    (then nothing is left behind)."""
    check_target(path, replace)
    folder = os.path.dirname(path) or "."
    fd, part = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".part",
                                dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            if callable(body):
                body(f)
            else:
                f.write(body.encode() if isinstance(body, str) else body)
        os.chmod(part, 0o644)
        check_target(path, replace)  # nothing planted there meanwhile
        os.replace(part, path)
    except BaseException:
        if os.path.lexists(part):
            os.unlink(part)
        raise
