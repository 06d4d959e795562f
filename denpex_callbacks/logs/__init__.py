"""The log doctor: framework log lines -> Observations -> the same Monitor as live runs.

One parser module per log family (``deepspeed``, ``fairseq``, ``apex``, ``megatron``, ``hf``,
``lightning``, ``torch_errors``, ``system``), a streaming ``reader``, an ``assembler`` that
numbers steps and merges per-rank duplicates, and the ``doctor`` that runs it all. Imports
neither torch nor any framework.
"""
