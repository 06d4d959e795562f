"""Where a non-finite value first appeared: the locator and its explanations."""
