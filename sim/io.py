"""Atomic output: write to a temporary file beside the target, then rename.

An interrupted run never leaves a half-written file where a finished one is expected.
"""
from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

import pandas as pd


def _usual_mode(tmp: str) -> None:
    # mkstemp makes files private (0600); finished outputs (tables, shared reports)
    # should get the permissions any other new file would under the user's umask.
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(tmp, 0o666 & ~mask)


@contextmanager
def _replacing(path):
    """Yield a temporary path beside `path`; on success it replaces `path`, on any
    failure (an exception, Ctrl-C) it is removed and `path` is left as it was."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    os.close(fd)
    try:
        yield tmp
        _usual_mode(tmp)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_bytes(path, data: bytes) -> Path:
    with _replacing(path) as tmp:
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
    with _replacing(path) as tmp:
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
