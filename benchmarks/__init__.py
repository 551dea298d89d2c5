"""Benchmarks: each ``bench_*.py`` module times pmldesign against a baseline in the same run."""
