"""Reproduce histogram-fig1b (PNG + CSV): python examples/histogram-fig1b.py [OUT_DIR] [--quick]."""

import sys
from pathlib import Path

from pmldesign.experiments import run_figure

if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--quick"]
    out = Path(args[0]) if args else Path("figures")
    for path in run_figure("histogram-fig1b", out, quick="--quick" in sys.argv[1:]):
        print(path)
