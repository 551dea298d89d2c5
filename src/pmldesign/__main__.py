"""``python -m pmldesign`` runs the command-line interface."""

from .cli.main import main

main()
