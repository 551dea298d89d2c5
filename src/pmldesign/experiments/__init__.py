"""Reproductions of the papers' figures and studies, by id (``pmldesign reproduce ID``).

>>> from pmldesign.experiments import figures
>>> "linear-fig1" in figures()
True

:func:`run_figure` computes one and writes its CSV and PNG. Layer 5 of the package, beside
``cli``: it may use every layer below.
"""

from .registry import Figure, figures, get_figure, run_figure

__all__ = ["Figure", "figures", "get_figure", "run_figure"]
