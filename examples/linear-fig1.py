"""Reproduce linear-fig1 (PNG + CSV): python examples/linear-fig1.py [OUT_DIR] [--quick]."""

import sys
from pathlib import Path

from pmldesign.experiments import run_figure

if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--quick"]
    out = Path(args[0]) if args else Path("figures")
    for path in run_figure("linear-fig1", out, quick="--quick" in sys.argv[1:]):
        print(path)
