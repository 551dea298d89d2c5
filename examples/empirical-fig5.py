"""Reproduce empirical-fig5 (see `pmldesign reproduce --list`): writes empirical-fig5.png and empirical-fig5.csv.

Usage: python examples/empirical-fig5.py [OUT_DIR] [--quick]
"""

import sys
from pathlib import Path

from pmldesign.experiments import run_figure

if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--quick"]
    out = Path(args[0] if args else "figures")
    for path in run_figure("empirical-fig5", out, quick="--quick" in sys.argv):
        print(path)
