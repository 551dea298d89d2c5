"""Reproduce histogram-fig1a: python examples/histogram-fig1a.py [OUT_DIR] [--quick]."""

import sys
from pathlib import Path

from pmldesign.experiments import run_figure

if __name__ == "__main__":
    out = Path(next((a for a in sys.argv[1:] if a != "--quick"), "figures"))
    print(*run_figure("histogram-fig1a", out, quick="--quick" in sys.argv), sep="\n")
