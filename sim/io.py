"""Atomic output: write to a temporary file beside the target, then rename.

An interrupted run never leaves a half-written file where a finished one is expected.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pandas as pd

from sim.errors import ScenarioError


def _usual_mode(tmp: str) -> None:
    # mkstemp makes files private (0600); finished outputs (tables, shared reports)
    # should get the permissions any other new file would under the user's umask.
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(tmp, 0o666 & ~mask)


def owner_tag() -> str:
    """`PID@HOST` in the names of temporary files and folders, so a later run can tell the
    leftovers of a killed process (SIGKILL runs no cleanup) from those of a live one."""
    return f"{os.getpid()}@{socket.gethostname().replace('.', '_')}"


_TAGGED = re.compile(r"\.(\d+)@([^.]+)\.[^.]*\.part$|^\.skirmish-chunks-(\d+)@([^-]+)-")


def _dead_owner(name: str) -> bool:
    m = _TAGGED.search(name)
    if not m:
        return False
    pid, host = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
    if host != socket.gethostname().replace(".", "_"):
        return False  # another machine's process (a shared folder): cannot tell, leave it
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError):
        return False
    return False


def remove_stale_temporaries(folder) -> list[Path]:
    """Remove the `.part` files and hidden chunk folders in `folder` whose process is gone."""
    folder, removed = Path(folder), []
    if not folder.is_dir():
        return removed
    for p in folder.iterdir():
        if p.name.startswith(".") and _dead_owner(p.name):
            shutil.rmtree(p, ignore_errors=True) if p.is_dir() else p.unlink(missing_ok=True)
            removed.append(p)
    return removed


def check_output_folder(folder, option: str) -> None:
    """Refuse, before any work, an output folder that cannot be made or written in: below
    a plain file, or in a folder without write permission."""
    folder = Path(folder)
    existing = next(p for p in (folder.absolute(), *folder.absolute().parents) if p.exists())
    if not existing.is_dir():
        where = "is a file" if existing == folder.absolute() else f"is below {existing}, which is a file"
        raise ScenarioError(f"{option} {folder} {where}; give a path in a folder.")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ScenarioError(f"{option} {folder}: cannot write in {existing} (permission denied); give a folder "
                            "you can write to.")


@contextmanager
def replacing(path):
    """Yield a temporary path beside `path`; on success it replaces `path`, on any
    failure (an exception, Ctrl-C) it is removed and `path` is left as it was."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{owner_tag()}.", suffix=".part", dir=path.parent)
    _IN_FLIGHT.add(tmp)
    try:
        os.close(fd)
        yield tmp
        _usual_mode(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    finally:
        _IN_FLIGHT.discard(tmp)


# The temporaries this process is writing. A hard exit (the Ctrl-C watchdog's) skips the
# cleanup above, and a Ctrl-C can land where it does not run; both remove these instead.
_IN_FLIGHT: set[str] = set()


def remove_in_flight() -> None:
    for tmp in list(_IN_FLIGHT):
        Path(tmp).unlink(missing_ok=True)
        _IN_FLIGHT.discard(tmp)


def atomic_write_bytes(path, data: bytes) -> Path:
    with replacing(path) as tmp:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    return Path(path)


def atomic_write_text(path, text: str) -> Path:
    return atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_frame(path, frame: pd.DataFrame, fmt: str, meta: dict | None = None) -> Path:
    if fmt not in ("parquet", "csv"):  # pragma: no cover - callers pass one of the two
        raise ValueError(fmt)
    with replacing(path) as tmp:
        if fmt == "parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq
            table = pa.Table.from_pandas(frame, preserve_index=False)
            if meta:
                merged = dict(table.schema.metadata or {})
                merged[b"skirmish_sim"] = json.dumps(meta, default=str).encode()
                table = table.replace_schema_metadata(merged)
            pq.write_table(table, tmp)
        else:
            frame.to_csv(tmp, index=False)
    return Path(path)


def read_meta(path) -> dict:
    """The provenance stored with a Parquet outcome table."""
    import pyarrow.parquet as pq
    md = pq.read_schema(path).metadata or {}
    raw = md.get(b"skirmish_sim")
    return json.loads(raw) if raw else {}
