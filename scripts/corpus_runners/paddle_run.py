"""Small PaddlePaddle trainings on CPU, as the log corpus records them.

Variants:
- ``hapi_healthy`` / ``hapi_nan_data``: ``paddle.Model.fit`` (its ``step n/m - loss: ...``
  lines), healthy, and with NaN features from the 13th batch of epoch 1 on.
- ``scaler_cpu``: a plain loop that asks for ``paddle.amp.GradScaler`` and fp16 autocast on
  CPU; Paddle warns that the scaler "makes no effect" there and trains unscaled.
- ``scaler_overflow``: the same loop with a scaler built as on a GPU (its constructor is
  shown a GPU place: Paddle refuses the scaler on CPU) and every gradient made inf by a hook
  from step 10 on, so Paddle's own ``_update`` prints its "Found inf or nan, current scale
  is" lines while the printed loss stays finite.
"""

from __future__ import annotations

import sys

import numpy as np
import paddle

VARIANT = sys.argv[1]
STEPS = 60 if VARIANT == "scaler_overflow" else 30
paddle.set_device("cpu")
paddle.seed(0)
rng = np.random.default_rng(0)
x = rng.normal(size=(320, 8)).astype("float32")
y = (x @ np.linspace(-1, 1, 8) + 0.1 * rng.normal(size=320)).astype("float32")[:, None]


def mlp() -> paddle.nn.Layer:
    return paddle.nn.Sequential(paddle.nn.Linear(8, 32), paddle.nn.ReLU(),
                                paddle.nn.Linear(32, 1))


if VARIANT.startswith("hapi"):
    if VARIANT == "hapi_nan_data":
        y[12 * 16:] = np.nan  # Paddle's ReLU maps NaN features to 0: NaN labels instead
    data = paddle.io.TensorDataset([paddle.to_tensor(x), paddle.to_tensor(y)])
    model = paddle.Model(mlp())
    model.prepare(paddle.optimizer.SGD(0.01, parameters=model.parameters()),
                  paddle.nn.MSELoss())
    model.fit(data, epochs=2, batch_size=16, shuffle=False, log_freq=4, verbose=2)
    sys.exit(0)

net = mlp()
optimizer = paddle.optimizer.SGD(0.01, parameters=net.parameters())


class _GpuPlace:
    def is_gpu_place(self) -> bool:
        return True


class _GpuTracer:
    _expected_place = _GpuPlace()


if VARIANT == "scaler_overflow":
    import paddle.amp.grad_scaler as grad_scaler_module

    real_tracer = grad_scaler_module._dygraph_tracer
    grad_scaler_module._dygraph_tracer = _GpuTracer  # the constructor's place check only
    scaler = paddle.amp.GradScaler(init_loss_scaling=1024)
    grad_scaler_module._dygraph_tracer = real_tracer
    # Paddle 3.3.1 keeps the scale as a shape-[1] tensor, and its own message formats it with
    # float(), which numpy 2 refuses for 1-d arrays ("only 0-dimensional arrays can be
    # converted"): the scale is kept 0-d here so the message can print.
    scaler._scale = paddle.to_tensor(1024.0, dtype="float32")
    step_box = [0]
    for param in net.parameters():
        param.register_hook(lambda g: g * float("inf") if step_box[0] >= 10 else g)
else:
    scaler = paddle.amp.GradScaler(init_loss_scaling=1024)
xs, ys = paddle.to_tensor(x), paddle.to_tensor(y)
for step in range(1, STEPS + 1):
    if VARIANT == "scaler_overflow":
        step_box[0] = step
    batch = slice((step - 1) % 20 * 16, (step - 1) % 20 * 16 + 16)
    with paddle.amp.auto_cast(dtype="float16"):
        loss = paddle.nn.functional.mse_loss(net(xs[batch]), ys[batch])
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.clear_grad()
    print(f"step {step}, loss {float(loss):.4f}", flush=True)
