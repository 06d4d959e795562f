"""The output of a healthy DeepSpeed run that denpex watched reads as healthy (exit 0).

DeepSpeed's logger shows WARNING and above by default, which hides DeepSpeed's own INFO lines
and denpex's INFO header alike: a healthy run then prints nothing of either. Users who read
DeepSpeed's logs set it to INFO; that output is what is diagnosed here.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("deepspeed")

from deepspeed.utils import logger as deepspeed_logger

from denpex_callbacks.cli import main


def test_the_info_output_of_a_healthy_run_exits_0(kit: Any, tmp_path: Path) -> None:
    log = tmp_path / "train.log"
    handler = logging.FileHandler(log)
    level = deepspeed_logger.level
    deepspeed_logger.addHandler(handler)
    deepspeed_logger.setLevel(logging.INFO)
    try:
        engine, watcher = kit.watched(kit.config(steps_per_print=2))
        kit.train(engine, 8)
        watcher.close()
    finally:
        deepspeed_logger.removeHandler(handler)
        deepspeed_logger.setLevel(level)
        handler.close()
    text = log.read_text()
    assert "denpex: deepspeed rank 0/1: precision fp16-mixed" in text
    assert not [line for line in text.splitlines() if "denpex: AMP" in line]
    assert main(["diagnose", str(log)]) == 0
