"""Searches that drive the solvers: output and column generation with their pricing."""
