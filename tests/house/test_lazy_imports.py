"""``import pmldesign`` and ``pmldesign --help`` load none of the heavy optional libraries:
they are imported inside the functions that use them (checked in fresh interpreters)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("scipy.linalg", "scipy.optimize", "scipy.stats", "cvxpy", "pandas", "highspy",
         "matplotlib")

_REPORT = "import json, sys; print(json.dumps(sorted(set(sys.modules) & set({heavy!r}))))"


def _loaded(code: str) -> list[str]:
    """The HEAVY modules in ``sys.modules`` after running ``code`` in a fresh interpreter."""
    script = f"{code}\n{_REPORT.format(heavy=HEAVY)}"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_import_loads_no_heavy_library():
    assert _loaded("import pmldesign") == []


def test_help_loads_no_heavy_library():
    code = ("import sys\nfrom pmldesign.cli.main import main\nsys.argv = ['pmldesign', '--help']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass")
    assert _loaded(code) == []


@pytest.mark.parametrize("name", ["certify", "design", "leakage", "sample", "SUM_TOLERANCE"])
def test_public_names_resolve_after_their_subpackages_load(name):
    """``pml.design`` and ``pml.leakage`` stay the functions although loading the subpackages
    of the same names sets those names on the package."""
    code = ("import pmldesign.design.api, pmldesign.leakage.measures, pmldesign as pml\n"
            f"value = pml.{name}\nprint(type(value).__name__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == ("float" if name == "SUM_TOLERANCE" else "function")


def test_every_public_name_resolves():
    import pmldesign as pml

    for name in pml.__all__:
        assert getattr(pml, name) is not None, name
    assert set(pml.__all__) <= set(dir(pml))
