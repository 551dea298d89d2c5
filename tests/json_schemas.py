"""The JSON Schemas shipped in ``src/pmldesign/schemas``, for validating ``--json`` output in tests.

Every schema is registered under its ``$id``, so the references between them
(``certify-v1.json#/$defs/certificate``, ``mechanism-v1.json``) resolve offline.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

import jsonschema
from referencing import Registry, Resource


@cache
def schemas() -> dict[str, dict]:
    """Every shipped schema by file name (``certify-v1.json``, ...)."""
    folder = resources.files("pmldesign").joinpath("schemas")
    return {path.name: json.loads(path.read_text()) for path in folder.iterdir()
            if path.name.endswith(".json")}


@cache
def registry() -> Registry:
    return Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema)) for schema in schemas().values())


def schema_name(command: str) -> str:
    """The schema file of a command (``binary laplace``: ``binary-laplace-v1.json``)."""
    return f"{command.replace(' ', '-')}-v1.json"


def validate(document: dict) -> None:
    """Validate a ``--json`` document against the schema its ``command`` names (raises
    :class:`jsonschema.ValidationError` on any mismatch)."""
    schema = schemas()[schema_name(document["command"])]
    validator = jsonschema.Draft202012Validator(
        schema, registry=registry(), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is not None:
        raise error
