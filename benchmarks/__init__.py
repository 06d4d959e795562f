"""Benchmarks of denpex-callbacks: step overhead per framework, Monitor cost, log doctor.

Run them with ``make bench`` (``benchmarks/run_all.py``). Not tests: the numbers depend on the
machine, so every comparison runs its variants side by side and reports medians and ratios.
"""
