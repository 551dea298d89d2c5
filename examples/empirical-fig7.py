"""Reproduce empirical-fig7 (see `pmldesign reproduce --list`): writes empirical-fig7.png and empirical-fig7.csv.

Usage: python examples/empirical-fig7.py [OUT_DIR] [--quick]
"""

import sys
from pathlib import Path

from pmldesign.experiments import run_figure

if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--quick"]
    out = Path(args[0] if args else "figures")
    for path in run_figure("empirical-fig7", out, quick="--quick" in sys.argv):
        print(path)
