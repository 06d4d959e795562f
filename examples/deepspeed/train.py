"""A tiny DeepSpeed fp16 run watched by denpex, with faults to inject.

    python examples/deepspeed/train.py                 # healthy: nothing above info
    python examples/deepspeed/train.py --fault inf     # loss * inf from step 10: AMP006,
                                                       # then AMP003 before DeepSpeed exits
    python examples/deepspeed/train.py --fault static  # "loss_scale": 2**24: AMP005

The only denpex lines are the import of ``initialize`` and the ``"denpex"`` section of
ds_config.json. Reports land in ./denpex_reports (``denpex diagnose denpex_reports``).
Runs as one process on CPU (gloo); under the ``deepspeed`` launcher it runs on every rank.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import deepspeed
import torch
from deepspeed.accelerator import get_accelerator

from denpex_callbacks.deepspeed import initialize


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fault", choices=["none", "inf", "static"], default="none")
    parser.add_argument("--steps", type=int, default=40)
    args = parser.parse_args()

    config = json.loads(Path(__file__).with_name("ds_config.json").read_text())
    if args.fault == "static":
        config["fp16"] = {"enabled": True, "loss_scale": 2**24}  # overflows fp16 every step

    for name, default in (("LOCAL_RANK", "0"), ("RANK", "0"), ("WORLD_SIZE", "1"),
                          ("MASTER_ADDR", "127.0.0.1"), ("MASTER_PORT", "29650")):
        os.environ.setdefault(name, default)
    deepspeed.init_distributed()
    if get_accelerator().device_name() == "cpu" and not get_accelerator().is_fp16_supported():
        # DeepSpeed asks oneDNN whether this CPU has fp16; torch's CPU kernels run this tiny
        # model in fp16 either way, so let the demo go on.
        print("note: DeepSpeed reports no fp16 on this CPU; running the demo with torch's "
              "CPU fp16 kernels")
        type(get_accelerator()).is_fp16_supported = lambda self: True

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
    engine, _optimizer, _loader, _scheduler = initialize(
        model=model, model_parameters=model.parameters(), config=config
    )
    device = engine.device
    try:
        for step in range(args.steps):
            inputs = torch.randn(8, 16, device=device, dtype=torch.half)
            target = inputs.float().sum(dim=1, keepdim=True)
            loss = (engine(inputs).float() - target).pow(2).mean()
            if args.fault == "inf" and step >= 9:
                loss = loss * float("inf")
            engine.backward(loss)
            engine.step()
    except Exception as exc:
        print(f"training stopped: {exc}")
        print(f"run report: {config['denpex']['report_dir']} (denpex diagnose it)")
        raise
    print(f"done: {engine.global_steps} steps, {engine.skipped_steps} skipped")


if __name__ == "__main__":
    main()
