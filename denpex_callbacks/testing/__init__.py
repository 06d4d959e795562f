"""Testing tools: the pytest plugin (``amp_monitor`` fixture) and ``run_amp_smoke``."""
