"""Layer 5: reproductions of the papers' figures and studies (see ``registry``)."""

from .registry import Figure, figures, get_figure, run_figure

__all__ = ["Figure", "figures", "get_figure", "run_figure"]
