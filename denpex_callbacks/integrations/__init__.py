"""One module per framework that wires its hooks to the shared pipeline."""
