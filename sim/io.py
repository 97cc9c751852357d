"""Atomic output: write to a temporary file beside the target, then rename.

An interrupted run never leaves a half-written file where a finished one is expected.
"""
from __future__ import annotations

import json
import os
import re
import secrets
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
    try:  # permission bits say nothing of /proc, a read-only mount or root's rights: try it
        os.rmdir(tempfile.mkdtemp(prefix=".skirmish-probe-", dir=existing))
    except OSError as e:
        raise ScenarioError(f"{option} {folder}: cannot write in {existing} ({e.strerror}); give a folder you can "
                            "write to.") from None


def check_output_name(path, option: str) -> None:
    """Refuse a file name that names a folder (`.`, `out/`) or no file at all: the table
    would otherwise be written as a hidden `.parquet` beside it."""
    text = str(path)
    name = Path(text).name
    if text.endswith(("/", os.sep)) or name in ("", ".", "..") or Path(text).is_dir():
        raise ScenarioError(f"{option} {text} names a folder; give a file name in it, e.g. "
                            f"{option} {Path(text) / 'results.parquet'}.")


@contextmanager
def replacing(path):
    """Yield a temporary path beside `path`; on success it replaces `path`, on any
    failure (an exception, Ctrl-C) it is removed and `path` is left as it was."""
    path = Path(path)
    tmp = new_temporary(path)
    try:
        yield tmp
        _usual_mode(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    finally:
        finished_with(tmp)


# The temporaries this process is writing. A hard exit (the Ctrl-C watchdog's) skips the
# cleanup above, and a Ctrl-C can land where it does not run; both remove these instead.
_IN_FLIGHT: set[str] = set()


_IN_FLIGHT_FOLDERS: set[str] = set()


def remove_in_flight() -> None:
    for tmp in list(_IN_FLIGHT):
        Path(tmp).unlink(missing_ok=True)
        _IN_FLIGHT.discard(tmp)
    for folder in list(_IN_FLIGHT_FOLDERS):
        shutil.rmtree(folder, ignore_errors=True)
        _IN_FLIGHT_FOLDERS.discard(folder)


def new_temporary(path: Path) -> str:
    """A new private `.part` file beside `path` (its folder made if need be), among the
    temporaries a Ctrl-C removes until `finished_with(it)`: moved into place or removed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return _registered_new(lambda name: os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)),
                           f"{path.parent / ('.' + path.name)}.{owner_tag()}.", ".part", _IN_FLIGHT)


def finished_with(tmp: str) -> None:
    _IN_FLIGHT.discard(tmp)


def _registered_new(make, prefix: str, suffix: str, registry: set[str]) -> str:
    """A new file or folder `prefix + random + suffix`, made by `make(name)`, and in
    `registry` before it exists. Registered after (tempfile's mkstemp, then add), a Ctrl-C
    handled as `make` returned left it unregistered, and so on disk: 1 in 12 interrupts of
    a threads run, whose main thread waits for the interpreter's lock after each system
    call while the chunk threads hold it."""
    for _ in range(100):
        name = f"{prefix}{secrets.token_hex(4)}{suffix}"
        registry.add(name)
        try:
            make(name)
            return name
        except FileExistsError:
            registry.discard(name)  # another's, by chance: not ours to remove
    raise FileExistsError(f"no free temporary name beside {prefix}")


@contextmanager
def temporary_folder(prefix: str, parent):
    """A hidden folder under `parent`, removed on the way out, as tempfile's
    TemporaryDirectory, but registered until it is gone: a Ctrl-C landing in its removal
    (at the end of a run that streams --out through it) stopped the removal halfway and
    left the folder and its chunks beside the output; the interrupt's cleanup
    (remove_in_flight) now finishes it."""
    folder = _registered_new(lambda name: os.mkdir(name, 0o700), os.path.join(parent, prefix), "", _IN_FLIGHT_FOLDERS)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        _IN_FLIGHT_FOLDERS.discard(folder)


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
