"""Reproduce empirical-fig6a: python examples/empirical-fig6a.py [OUT_DIR] [--quick]."""

import sys
from pathlib import Path

from pmldesign.experiments import run_figure

if __name__ == "__main__":
    out = Path(next((a for a in sys.argv[1:] if a != "--quick"), "figures"))
    print(*run_figure("empirical-fig6a", out, quick="--quick" in sys.argv), sep="\n")
