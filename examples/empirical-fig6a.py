"""Reproduce empirical-fig6a (see `pmldesign reproduce --list`): writes empirical-fig6a.png and empirical-fig6a.csv.

Usage: python examples/empirical-fig6a.py [OUT_DIR] [--quick]
"""

import sys
from pathlib import Path

from pmldesign.experiments import run_figure

if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--quick"]
    out = Path(args[0] if args else "figures")
    for path in run_figure("empirical-fig6a", out, quick="--quick" in sys.argv):
        print(path)
