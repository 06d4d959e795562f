"""Settings shared by every collected test, the package's doctests included."""

import os

# When transformers or accelerate import DeepSpeed, it detects its accelerator and, finding no
# GPU, logs a WARNING line to stdout the first time (deepspeed 0.19.8,
# accelerator/real_accelerator.py). Inside a doctest that line is unexpected output, so the
# first doctest to trigger it failed and the result depended on test order. Naming the CPU
# accelerator, as a CPU user would, turns the line into an INFO record that is not shown.
os.environ.setdefault("DS_ACCELERATOR", "cpu")
