"""A small Keras 3 fit on the torch backend (CPU), as the log corpus records it.

Variants: ``healthy``; ``mixed_float16`` (healthy, under the mixed_float16 policy, whose
compile wraps the optimizer in a LossScaleOptimizer); ``nan_data`` (NaN features in batch 6
of every epoch on); ``nan_terminate`` (the same, with keras.callbacks.TerminateOnNaN);
``high_lr_epoch2`` (a LearningRateScheduler sets lr 1e4 from epoch 2: the loss overflows there).
Each batch ends with a 60 ms pause, longer than the bar's 50 ms refresh interval, so that the
bar prints every batch whatever the machine's speed (the recording is then reproducible).
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("KERAS_BACKEND", "torch")

import time

import keras
import numpy as np

VARIANT = sys.argv[1]
keras.utils.set_random_seed(0)
if VARIANT == "mixed_float16":
    keras.mixed_precision.set_global_policy("mixed_float16")

rng = np.random.default_rng(0)
x = rng.normal(size=(320, 8)).astype("float32")
y = (x @ np.linspace(-1, 1, 8) + 0.1 * rng.normal(size=320)).astype("float32")
if VARIANT.startswith("nan"):
    x[5 * 32:, 0] = np.nan  # batch size 32, 10 batches an epoch: batch 6 on

model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(32, activation="relu"),
                          keras.layers.Dense(1, dtype="float32")])
model.compile(optimizer=keras.optimizers.SGD(0.01), loss="mse")
pause = keras.callbacks.LambdaCallback(on_train_batch_end=lambda batch, logs: time.sleep(0.06))
callbacks = [pause, keras.callbacks.TerminateOnNaN()] if VARIANT == "nan_terminate" else [pause]
if VARIANT == "high_lr_epoch2":
    callbacks.append(keras.callbacks.LearningRateScheduler(
        lambda epoch, lr: 1e4 if epoch >= 1 else lr, verbose=1))
print(f"optimizer: {type(model.optimizer).__name__}", flush=True)
model.fit(x, y, batch_size=32, epochs=2, shuffle=False, callbacks=callbacks)
