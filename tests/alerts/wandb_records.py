"""Reads the records of a wandb run's ``.wandb`` transaction log (what ``wandb sync`` sends).

wandb 0.31 writes it from its Go service (core/pkg/leveldb-style store): a 7-byte header
(``:W&B``, magic 0xBEE1, version 0), then 32 KiB blocks of chunks, each a CRC32 (4 bytes),
a length (2) and a type (1: full, 2: first, 3: middle, 4: last), the Python reader having
left the package; each assembled record is a ``wandb_internal_pb2.Record``.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import pytest

BLOCK = 32 * 1024
HEADER = 7
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4


def records(path: Path) -> list[Any]:
    from wandb.proto import wandb_internal_pb2 as pb

    data = path.read_bytes()
    assert data[:4] == b":W&B", "not a wandb transaction log"
    pos, parts, out = HEADER, b"", []
    while pos + HEADER <= len(data):
        left = BLOCK - pos % BLOCK
        if left < HEADER:  # block trailer padding
            pos += left
            continue
        _crc, length, kind = struct.unpack("<IHB", data[pos:pos + HEADER])
        chunk = data[pos + HEADER:pos + HEADER + length]
        pos += HEADER + length
        if kind in (FULL, FIRST):
            parts = chunk
        elif kind in (MIDDLE, LAST):
            parts += chunk
        else:
            continue
        if kind in (FULL, LAST):
            record = pb.Record()
            record.ParseFromString(parts)
            out.append(record)
    return out


def alerts(run_dir: Path) -> list[Any]:
    """The AlertRecords of the one offline run under ``run_dir``."""
    (log,) = run_dir.glob("wandb/offline-run-*/run-*.wandb")
    return [r.alert for r in records(log) if r.WhichOneof("record_type") == "alert"]


def history(run_dir: Path, key: str) -> list[float]:
    """The values logged under ``key``, in order, by the one offline run under ``run_dir``."""
    (log,) = run_dir.glob("wandb/offline-run-*/run-*.wandb")
    out = []
    for record in records(log):
        if record.WhichOneof("record_type") == "history":
            for item in record.history.item:
                name = item.key or "/".join(item.nested_key)
                if name == key:
                    out.append(float(json.loads(item.value_json)))
    return out


def offline_environment(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """wandb offline, silent, all its files under ``folder``."""
    for name, value in {"WANDB_MODE": "offline", "WANDB_SILENT": "true",
                        "WANDB_DIR": str(folder), "WANDB_CACHE_DIR": str(folder / "c"),
                        "WANDB_CONFIG_DIR": str(folder / "cfg"),
                        "WANDB_DATA_DIR": str(folder / "d")}.items():
        monkeypatch.setenv(name, value)


def finish() -> None:
    """End the run and wandb's service: its transaction log is flushed only when the service
    ends (after ``wandb.finish()`` alone it may still hold nothing but its header)."""
    import wandb

    if wandb.run is not None:
        wandb.finish()
    wandb.teardown()
