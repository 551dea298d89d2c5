"""The architecture of the brief, checked on the source: data flows one way, from math to
interfaces; nothing below imports what is above; cvxpy and dask are imported lazily; the
leakage layer needs numpy only."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "pmldesign"

#: Layer of every top-level unit of the package (a sub-package or a module). A unit may import
#: itself and units of strictly lower layers only.
LAYERS = {
    "_errors": 0, "_json": 0, "_dask_compute": 0, "_document": 0.05, "_files": 0.1,
    "_memory": 0.05, "_validation": 0.1,
    "_results": 0.1, "_categories": 0.15, "data": 0.2, "sampling": 0.2, "mechanism": 0.2,
    "leakage": 1,
    "uncertainty": 2, "typing": 2.2, "certification": 2.5,
    "design": 3,
    "linear": 4, "additive": 4,
    "release": 5,
    "pmldesign": 5.5,  # the curated public surface, pmldesign/__init__.py
    "experiments": 6, "cli": 6.5, "__main__": 7,
}
LAZY = ("cvxpy", "dask", "distributed", "matplotlib")


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        name = parts[:-1] if is_package else parts
        yield path, name, name if is_package else name[:-1]


def _unit(dotted: tuple[str, ...]) -> str:
    return dotted[1] if len(dotted) > 1 else dotted[0]


def _imports(path: Path, package: tuple[str, ...]):
    """(target module parts, line, at module level) for every import of ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(node) for node in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = base + tuple((node.module or "").split(".") if node.module else ())
            else:
                target = tuple(node.module.split("."))
            yield target, node.lineno, id(node) in top
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield tuple(alias.name.split(".")), node.lineno, id(node) in top


CASES = list(_modules())


def test_every_unit_has_a_layer():
    units = {_unit(name) for _, name, _ in CASES}
    assert units == set(LAYERS), "give every top-level unit of pmldesign a layer here"


@pytest.mark.parametrize(("path", "name", "package"), CASES,
                         ids=[".".join(name) for _, name, _ in CASES])
def test_imports_flow_downwards(path, name, package):
    here = _unit(name)
    for target, line, _ in _imports(path, package):
        if target[0] != "pmldesign":
            continue
        there = _unit(target)
        assert there == here or LAYERS[there] < LAYERS[here], (
            f"{path.name}:{line}: {here} (layer {LAYERS[here]}) imports {there} "
            f"(layer {LAYERS[there]})"
        )


@pytest.mark.parametrize(("path", "name", "package"), CASES,
                         ids=[".".join(name) for _, name, _ in CASES])
def test_heavy_optional_libraries_are_imported_lazily(path, name, package):
    for target, line, module_level in _imports(path, package):
        assert not (module_level and target[0] in LAZY), (
            f"{path.name}:{line}: import {target[0]} inside the function that needs it"
        )


def test_the_leakage_layer_needs_numpy_only():
    allowed = {"numpy", "math", "__future__", "typing", "dataclasses", "collections",
               "functools", "pmldesign"}
    for path, name, package in CASES:
        if _unit(name) != "leakage":
            continue
        for target, line, _ in _imports(path, package):
            assert target[0] in allowed, f"{path.name}:{line}: leakage imports {target[0]}"


#: Layers inside ``design``: the math and the formulations for a solver, then the finalisation,
#: the searches, and the front. A module may import its own unit and lower ones only.
DESIGN_LAYERS = {
    "status": 0, "budget": 0, "_highs": 0,
    "math": 1, "formulation": 2,
    "repair": 3, "closed_form": 3.5,
    "search": 4, "estimation": 4.2, "releases": 4.5,
    "result": 4.8, "api": 5, "oracles": 5.5, "compare": 6, "__init__": 7,
}


def _design_unit(parts: tuple[str, ...]) -> str:
    """The unit inside ``design`` of a module path (``pmldesign.design.search.plan`` -> search)."""
    return parts[2] if len(parts) > 2 else "__init__"


@pytest.mark.parametrize(("path", "name", "package"),
                         [case for case in CASES if case[1][:2] == ("pmldesign", "design")],
                         ids=[".".join(name) for _, name, _ in CASES
                              if name[:2] == ("pmldesign", "design")])
def test_design_imports_flow_downwards_inside_design(path, name, package):
    here = _design_unit(name)
    assert here in DESIGN_LAYERS, f"give design.{here} a layer in DESIGN_LAYERS"
    for target, line, _ in _imports(path, package):
        if target[:2] != ("pmldesign", "design") or len(target) < 3:
            continue
        there = _design_unit(target)
        assert there == here or DESIGN_LAYERS[there] < DESIGN_LAYERS[here], (
            f"{path.name}:{line}: design.{here} (layer {DESIGN_LAYERS[here]}) imports "
            f"design.{there} (layer {DESIGN_LAYERS[there]})"
        )
