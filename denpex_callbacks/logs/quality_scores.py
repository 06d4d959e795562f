"""Image-quality scores printed alone: a line about evaluation, no split named.

A restoration, super-resolution or rendering script trains on its loss and scores its
held-out images by their quality against the references: PSNR, SSIM, LPIPS. Where a line
prints such scores and nothing else of the run (no loss, no learning rate, no step or
batch counter), it is the evaluation's summary even though it names no split: PyTorch's
super-resolution example and the scripts copied from it print ``"===> Avg. PSNR: {:.4f}
dB"`` after each epoch's test pass (pytorch/examples ``super_resolution/main.py``
``test``; 657671238/RAFT ``train_unet.py`` ``test_u``), others ``Average PSNR: 27.1, SSIM:
0.83``. Its NaN is the evaluation's (AMP013), beside the training loss's own.

A line that also prints a loss or a counter is a training row (a training PSNR beside its
loss, ``Iter 300 PSNR 28.1``): left to the other rules. An epoch may number the line,
with the epochs after it or not (``Epoch 3: PSNR nan``, ``Epoch [3/100] ...``): evaluation
runs once an epoch.
"""

from __future__ import annotations

import re

# The scores, by name: any case, glued to a qualifier (``PSNR_Y``, ``psnr-rgb``, ``MS-SSIM``)
_SCORE = re.compile(r"(?i)(?<![a-z])(?:psnr|ssim|lpips)(?![a-z])")
# What a training row holds beside its scores: a loss, a learning rate, a step's or a
# batch's counter (``Iter 300``, ``step: 12``, ``[10/500]``, ``(81/120)``)
_TRAINING = re.compile(r"(?i)loss|\b(?:lr|learning[ _]rate|iter|iters|iteration|step|batch)\b"
                       r"|\d\s*/\s*\d")
# The epoch and the epochs after it (``Epoch [3/100]``, ``epoch 3/100``): no batch's counter
_EPOCH_OF = re.compile(r"(?i)\bepoch\W{0,3}\d+\s*/\s*\d+")


def scores_alone(text: str) -> bool:
    """Whether ``text`` prints image-quality scores and nothing of a training step: an
    evaluation's summary that names no split.

    Example:
        >>> scores_alone("===> Avg. PSNR: nan dB"), scores_alone("Average PSNR: 27.1, SSIM: 0.8")
        (True, True)
        >>> scores_alone("Epoch 3: PSNR nan"), scores_alone("Iter 300 PSNR 28.1")
        (True, False)
        >>> scores_alone("Epoch [3/100] PSNR: nan"), scores_alone("[3/100][50/500] PSNR: nan")
        (True, False)
        >>> scores_alone("===> Epoch[2](81/120): Loss: nan PSNR: nan")
        False
        >>> scores_alone("Epoch 4 lr 0.001 psnr_y 30.2"), scores_alone("loading ssim.py")
        (False, False)
    """
    # (cheap guards first: most lines name no score; a line with no digit or NaN word holds
    # no value to read)
    if "SNR" not in text and "snr" not in text and "SIM" not in text and "sim" not in text \
            and "PIPS" not in text and "pips" not in text:
        return False
    if _SCORE.search(text) is None:
        return False
    if _TRAINING.search(_EPOCH_OF.sub("epoch", text) if "poch" in text else text) is not None:
        return False
    return any(ch.isdigit() for ch in text) or "nan" in text.lower() or "inf" in text.lower()
