"""Reproduce empirical-fig2b (see pmldesign.experiments.empirical_bounds): writes empirical-fig2b.csv and .png.

Usage: python examples/empirical-fig2b.py [OUT_DIR] [--quick]
"""

import sys
from pathlib import Path

from pmldesign.experiments import run_figure

if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--quick"]
    out = Path(args[0]) if args else Path("figures")
    for path in run_figure("empirical-fig2b", out, quick="--quick" in sys.argv):
        print(path)
