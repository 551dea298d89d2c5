"""Reproduce design-vs-rr: python examples/design-vs-rr.py [OUT_DIR] [--quick]."""

import sys
from pathlib import Path

from pmldesign.experiments import run_figure

if __name__ == "__main__":
    out = Path(next((a for a in sys.argv[1:] if a != "--quick"), "figures"))
    print(*run_figure("design-vs-rr", out, quick="--quick" in sys.argv), sep="\n")
