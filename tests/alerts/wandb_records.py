"""Reads the records of a wandb run's ``.wandb`` transaction log (what ``wandb sync`` sends).

wandb 0.31 writes it from its Go service (core/pkg/leveldb-style store): a 7-byte header
(``:W&B``, magic 0xBEE1, version 0), then 32 KiB blocks of chunks, each a CRC32 (4 bytes),
a length (2) and a type (1: full, 2: first, 3: middle, 4: last), the Python reader having
left the package; each assembled record is a ``wandb_internal_pb2.Record``.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

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
