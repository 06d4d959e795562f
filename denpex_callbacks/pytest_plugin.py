"""pytest plugin (entry point ``pytest11``): fp16 health smoke tests for a user's CI."""
