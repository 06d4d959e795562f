"""Training scripts written for Chinese, Japanese or Korean readers print their metrics in those
languages, often with full-width punctuation. The excerpts follow format strings of such
scripts' loops (``logger.info(f"步骤 {global_step}, 损失: {loss:.4f}")``,
``print(f"训练损失: {train_loss:.4f}, 训练准确率: {train_acc:.4f}")`` then ``验证损失``,
``print(f"Epoch: {i} , 损失: {loss:.4f}")``, tqdm postfixes ``损失=...``), and the same
layouts in Japanese (``エポック``, ``ステップ``, ``損失``, ``学習率``) and Korean (``에폭``,
``스텝``, ``손실``, ``학습률``): a fault, and healthy controls beside texts that are no log.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from excerpts import diagnose_lines, faults

from denpex_callbacks.logs.cjk import in_english
from denpex_callbacks.logs.doctor import diagnose


def _loss(step: int, nan_from: int | None) -> str:
    if nan_from is not None and step >= nan_from:
        return "nan"
    return f"{2.5 * math.exp(-step / 400) + 0.3:.4f}"


def _steps(nan_from: int | None, *, colon: str = ": ", every: int = 10) -> list[str]:
    """``logger.info(f"步骤 {global_step}, 损失: {loss:.4f}")`` under logging's default
    format, the full-width colon as some write it."""
    return [f"2024-05-01 10:{s // 60 % 60:02d}:{s % 60:02d} - INFO - 步骤 {s}, "
            f"损失{colon}{_loss(s, nan_from)}" for s in range(every, 400, every)]


def _epochs(nan_epoch: int | None, *, val_nan_epoch: int | None = None) -> list[str]:
    """One block an epoch: the train and validation losses and accuracies in Chinese."""
    out = []
    for epoch in range(1, 11):
        train = "nan" if nan_epoch is not None and epoch >= nan_epoch else f"{2.0 / epoch:.4f}"
        val = ("nan" if (val_nan_epoch is not None and epoch >= val_nan_epoch)
               or train == "nan" else f"{2.1 / epoch:.4f}")
        out += [f"Epoch {epoch}/10", f"训练损失: {train}, 训练准确率: {0.5 + epoch / 30:.4f}",
                f"验证损失: {val}, 验证准确率: {0.5 + epoch / 40:.4f}", "本轮用时: 12.31s",
                "-" * 50]
    return out


@pytest.mark.parametrize("colon", [": ", "：", "="], ids=["ascii", "full-width", "equals"])
def test_a_chinese_step_line_is_read(tmp_path: Path, colon: str) -> None:
    assert faults(tmp_path, _steps(200, colon=colon)) == [("AMP006", 200)]


def test_one_block_an_epoch_in_chinese_is_numbered_by_its_epoch(tmp_path: Path) -> None:
    found = faults(tmp_path, _epochs(5))
    assert ("AMP006", 5) in found, found


def test_a_chinese_validation_loss_is_evaluation(tmp_path: Path) -> None:
    assert faults(tmp_path, _epochs(None, val_nan_epoch=7)) == [("AMP013", 7)]


def test_japanese_and_korean_step_lines_are_read(tmp_path: Path) -> None:
    japanese = [f"エポック 1, ステップ {s}, 損失: {_loss(s, 150)}, 学習率: 1e-4"
                for s in range(10, 210, 10)]
    korean = [f"[에폭 2/10] 스텝 {s}/500 | 손실: {_loss(s, 300)} | 학습률: 0.0001"
              for s in range(20, 420, 20)]
    assert faults(tmp_path, japanese) == [("AMP006", 150)]
    assert faults(tmp_path, korean) == [("AMP006", 300)]


def test_the_nth_epoch_and_step_are_counters() -> None:
    assert in_english("第3轮 第40步 训练损失：2.3451，学习率：0.0001") == (
        "epoch 3 step 40 train loss: 2.3451, lr: 0.0001")


@pytest.mark.parametrize("lines", [
    _steps(None),
    _steps(None, colon="："),
    _epochs(None),
    [f"训练中: {s // 10}%|██▌ | {s}/1000 [00:{s % 60:02d}<01:00, 3.2it/s, 损失={_loss(s, None)}]"
     for s in range(100, 900, 50)],
], ids=["steps", "full-width", "epochs", "tqdm"])
def test_healthy_chinese_logs_are_read_and_quiet(tmp_path: Path, lines: list[str]) -> None:
    result = diagnose_lines(tmp_path, lines)
    assert result.faults == [], result.faults
    assert result.reading.keys, result.reading  # read as metrics, not "nothing to diagnose"


@pytest.mark.parametrize("lines", [
    ["我的模型训练时损失变成nan了，怎么办？", "用的是fp16混合精度训练，学习率是1e-4。",
     "有人遇到过这个问题吗？损失一开始正常，后来就nan了。"],
    ["## 训练", "运行 python train.py --lr 1e-4 --fp16", "损失函数: 交叉熵",
     "默认学习率: 0.0001, 批次大小: 32", "训练 100 轮后验证准确率约为 92%。"],
], ids=["question", "readme"])
def test_chinese_text_that_is_no_log_raises_nothing(tmp_path: Path, lines: list[str]) -> None:
    path = tmp_path / "text.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = diagnose(str(path))
    assert result.faults == [], result.faults
