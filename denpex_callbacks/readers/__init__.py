"""Where each framework keeps its loss scale, read without adding a host-device sync."""
