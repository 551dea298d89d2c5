"""Small matplotlib helpers shared by the figure modules."""

from __future__ import annotations


def label(ax, xlabel: str, ylabel: str | None, title: str, show_legend: bool = True,
          **legend) -> None:
    """Axis labels, title, a light grid and the legend (keyword arguments go to legend())."""
    ax.set_xlabel(xlabel)
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3, which="both")
    if show_legend:
        ax.legend(**legend)


def save(fig, path) -> None:
    """Tight layout, write the PNG, free the figure."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
