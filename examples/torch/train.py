"""A hand-written fp16 AMP loop watched by denpex's AmpMonitor, with an injectable fault.

Runs on CUDA as is, and on CPU with fp16 autocast + torch.amp.GradScaler("cpu").

    python examples/torch/train.py --fault overflow     # loss scale collapse (AMP003)
    python examples/torch/train.py --fault nan          # NaN loss (AMP006)
    python examples/torch/train.py --fault no-update    # scaler.update() missing (AMP002)
    python examples/torch/train.py --fault no-scaler    # fp16 without GradScaler (AMP001)
    python examples/torch/train.py                      # healthy: nothing to report
"""

from __future__ import annotations

import argparse
import logging
import sys

import torch

from denpex_callbacks.torch import AmpMonitor

FAULTS = ("none", "nan", "overflow", "no-update", "no-scaler")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fault", choices=FAULTS, default="none")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--fault-step", type=int, default=60)
    parser.add_argument("--report-dir", default="denpex_reports/torch-example")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(64, 256), torch.nn.GELU(), torch.nn.Linear(256, 256), torch.nn.GELU(),
        torch.nn.Linear(256, 1),
    ).to(device)
    lr = 0.01
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    scaler = torch.amp.GradScaler(device, enabled=args.fault != "no-scaler")
    monitor = AmpMonitor(scaler=scaler, optimizer=optimizer, model=model,
                         report_dir=args.report_dir)
    print(f"training {args.steps} fp16 steps on {device}, fault: {args.fault}")
    try:
        for step in range(args.steps):
            x = torch.randn(64, 64, device=device)
            y = x[:, :1].sin()
            if args.fault == "overflow" and step == args.fault_step:
                for group in optimizer.param_groups:  # a learning-rate blow-up mid-run
                    group["lr"] = 1e4
            with torch.autocast(device, dtype=torch.float16):
                loss = torch.nn.functional.mse_loss(model(x).float(), y)
            if args.fault == "nan" and step >= args.fault_step:
                loss = loss * float("nan")
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            if not (args.fault == "no-update" and step >= args.fault_step):
                scaler.update()
            optimizer.zero_grad(set_to_none=True)
            monitor.step(loss)
    except RuntimeError as exc:  # torch's own protocol error, after denpex reported it
        print(f"torch raised: {exc}")
    finally:
        monitor.close()
    faults = [d for d in monitor.diagnoses if d.severity.value != "info"]
    print(f"\n{len(faults)} diagnosis(es); report: {monitor.monitor.report_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
