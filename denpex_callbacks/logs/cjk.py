"""Metric words written in Chinese, Japanese or Korean, read as the English words the lexicon
knows.

Training scripts written for Chinese, Japanese or Korean readers print their metrics in those
languages, often with full-width punctuation: ``步骤 120, 损失: nan`` (step, loss),
``训练损失：2.3451``, ``第3轮`` (the 3rd epoch), ``学習率: 0.0001`` (learning rate), ``손실:
0.52``. A line that holds such words is rewritten into the English a log in that layout would
print (``step 120, loss: nan``) before it is read, so that every reader and the lexicon's rules
apply to it unchanged; the evidence still quotes the line as it was printed.
"""

from __future__ import annotations

import re

from denpex_callbacks.logs.lazy_patterns import lazy_pattern

# Full-width punctuation and the ideographic space, as their ASCII forms.
_PUNCTUATION = str.maketrans({"：": ": ", "，": ", ", "；": "; ", "（": "(", "）": ")",
                              "【": "[", "】": "]", "［": "[", "］": "]", "＝": "=",
                              "、": ", ", "。": ". ", "｜": "|", "／": "/", "　": " ",
                              "％": "%"})

# "The N-th epoch / step" (第N轮, 第 N 个 epoch, 第N步, 第N次迭代): a counter before its word.
_NTH = lazy_pattern(r"第\s*(\d+)\s*(?:个|個)?\s*(?:(轮|輪|回合|[Ee]poch)|步|次迭代|次更新|批)")

# Each term and its English words, longest first where one holds another (学习率 before 学习).
# Chinese (simplified and traditional), then Japanese, then Korean.
_TERMS: dict[str, str] = {
    # the loss scale and the gradient norm, before their parts
    "损失缩放": "loss scale", "損失縮放": "loss scale", "损失比例": "loss scale",
    "缩放因子": "loss scale", "ロススケール": "loss scale", "손실 스케일": "loss scale",
    "梯度范数": "grad norm", "梯度範數": "grad norm", "勾配ノルム": "grad norm",
    "기울기 노름": "grad norm", "그래디언트 노름": "grad norm",
    # the learning rate, before "learning"/"training"
    "学习率": "lr", "學習率": "lr", "学習率": "lr", "학습률": "lr",
    # loss, objective
    "损失函数": "loss function", "損失函數": "loss function", "損失関数": "loss function",
    "손실 함수": "loss function", "损失值": "loss", "損失值": "loss", "损失": "loss",
    "損失": "loss", "손실": "loss", "ロス": "loss", "代价": "cost",
    # phases
    "训练集": "train", "訓練集": "train", "训练": "train", "訓練": "train", "学習": "train",
    "학습": "train", "훈련": "train", "验证集": "val", "驗證集": "val", "验证": "val",
    "驗證": "val", "検証": "val", "검증": "val", "评估": "eval", "評估": "eval", "評価": "eval",
    "평가": "eval", "测试集": "test", "測試集": "test", "测试": "test", "測試": "test",
    "テスト": "test", "테스트": "test",
    # counters
    "步骤": "step", "步驟": "step", "步数": "step", "步數": "step", "ステップ": "step",
    "스텝": "step", "迭代次数": "iter", "迭代": "iter", "イテレーション": "iter",
    "반복": "iter", "轮次": "epoch", "輪次": "epoch", "エポック": "epoch", "에폭": "epoch",
    "에포크": "epoch", "批次": "batch", "バッチ": "batch", "배치": "batch",
    # qualifiers
    "平均": "avg", "总": "total", "總": "total", "合計": "total", "当前": "current",
    "當前": "current", "現在": "current", "最终": "final", "最終": "final", "最佳": "best",
    "最好": "best", "准确率": "accuracy", "準確率": "accuracy", "正确率": "accuracy",
    "正解率": "accuracy", "精度": "accuracy", "정확도": "accuracy", "溢出": "overflow",
    "跳过": "skipped", "跳過": "skipped", "梯度": "grad", "勾配": "grad",
}
_TERM = lazy_pattern("|".join(sorted(map(re.escape, _TERMS), key=len, reverse=True)))
# A character of the scripts above: a line without one is left as it is (most lines).
_CJK = lazy_pattern(r"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff01-\uff5e]")
_SPACE_BEFORE = lazy_pattern(r"[ \t]+(?=[:,;=])")


def has_cjk(text: str) -> bool:
    """Whether a line holds a Chinese, Japanese or Korean character (or full-width
    punctuation).

    Example:
        >>> has_cjk("step 3 | loss nan"), has_cjk("训练损失：2.3")
        (False, True)
    """
    return not text.isascii() and _CJK().search(text) is not None


def in_english(text: str) -> str:
    """The line with its Chinese, Japanese or Korean metric words in English.

    Example:
        >>> in_english("步骤 120, 损失: nan")
        'step 120, loss: nan'
        >>> in_english("第3轮 第40步 训练损失：2.3451，学习率：0.0001")
        'epoch 3 step 40 train loss: 2.3451, lr: 0.0001'
        >>> in_english("エポック 2 ステップ 300 損失: 0.52"), in_english("에폭 1 손실: nan")
        ('epoch 2 step 300 loss: 0.52', 'epoch 1 loss: nan')
    """
    text = text.translate(_PUNCTUATION)
    text = _NTH().sub(lambda m: f" {'epoch' if m.group(2) else 'step'} {m.group(1)} ", text)
    text = _TERM().sub(lambda m: f" {_TERMS[m.group(0)]} ", text)
    return _SPACE_BEFORE().sub("", " ".join(text.split()))
