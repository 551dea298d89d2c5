"""Layer 5: the ``pmldesign`` command-line interface (nothing below imports it)."""
