"""The accountant: one PML budget over every release of a record, certified after each one.

Each :meth:`Accountant.add` composes the new release with everything recorded
(:mod:`pmldesign.uncertainty.composition`) and certifies the whole: exactly over the joint
outputs when there are at most :data:`EXACT_MAX` joint entries, else by the sound bound
:func:`pmldesign.uncertainty.composition.bound` (the PML of one release plus the local-DP
epsilons of the others), and the history says which. Releases are judged together because PML
composes under the posterior: a second release of the same column is not worth its own epsilon
again (two releases of a mechanism with structural zeros can reveal the input).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._errors import BudgetExceededError, InvalidInputError
from .._validation import as_float_array, as_mechanism, as_positive, as_prior
from ..uncertainty import composition
from ..uncertainty.prior_set import PriorSet

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike

    from ..typing import PriorLike

#: Largest joint mechanism (inputs times outputs) certified exactly; above it the sound bound.
#: 2^28 entries take a few seconds (``benchmarks/bench_composition.py`` re-tunes it).
EXACT_MAX = 2**28
#: Version of :meth:`Accountant.to_json`'s document.
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Release:
    """One recorded release.

    Attributes
    ----------
    label : str or None
        The caller's name for it.
    reads : int
        The attribute it reads.
    epsilon : float
        The certified total over every release up to and including this one.
    method : str
        ``"exact"`` (every joint output certified) or ``"bound"`` (the composition bound).
    """

    label: str | None
    reads: int
    epsilon: float
    method: str


class Accountant:
    """Track a PML budget over several releases of one record.

    Parameters
    ----------
    prior : array_like or PriorSet
        The record's prior: a vector (one attribute), an array with one axis per attribute
        (the joint distribution; cells of 0, combinations that never occur, are left out of
        every maximum), or a :class:`~pmldesign.PriorSet` over the flattened product (C order;
        give ``shape``).
    budget : float
        Total eps (nats) the releases together may leak, > 0.
    shape : sequence of int, optional
        The attributes' alphabet sizes when ``prior`` is a PriorSet over several attributes.

    Examples
    --------
    >>> import pmldesign as pml
    >>> acc = pml.Accountant([0.5, 0.5], budget=0.5)
    >>> round(acc.add(pml.randomized_response(2, eps=0.5), label="first"), 6)
    0.21907
    >>> round(acc.add(pml.randomized_response(2, eps=0.5), label="second"), 6)  # not 2 x 0.219
    0.379885
    >>> try:
    ...     acc.add(pml.randomized_response(2, eps=3.0))
    ... except pml.BudgetExceededError:
    ...     print("refused, not recorded")
    refused, not recorded
    >>> len(acc.history)
    2
    """

    def __init__(self, prior: PriorLike, budget: float, *,
                 shape: Sequence[int] | None = None) -> None:
        self.budget = as_positive(budget, "budget")
        if isinstance(prior, PriorSet):
            self._prior: np.ndarray | PriorSet = prior
            sizes = (prior.size,) if shape is None else tuple(int(s) for s in shape)
            if math.prod(sizes) != prior.size or any(s < 1 for s in sizes):
                raise InvalidInputError(
                    f"shape: the attributes' sizes {sizes} must multiply to the prior set's "
                    f"{prior.size} symbols"
                )
        else:
            array = np.asarray(prior, dtype=float)
            if shape is not None:
                raise InvalidInputError("shape: only with a PriorSet; an array prior has its "
                                        "own shape")
            sizes = array.shape if array.ndim > 1 else (array.size,)
            self._prior = as_prior(array.reshape(-1), "prior", zeros=True)
        self.shape: tuple[int, ...] = tuple(sizes)
        self._mechanisms: list[np.ndarray] = []
        self._history: list[Release] = []

    @property
    def epsilon(self) -> float:
        """The certified total so far (0 before any release)."""
        return self._history[-1].epsilon if self._history else 0.0

    @property
    def history(self) -> tuple[Release, ...]:
        """The recorded releases, each with the certified total after it."""
        return tuple(self._history)

    def add(self, mechanism: ArrayLike, reads: int | None = None,
            label: str | None = None) -> float:
        """Record a release and return the certified total over everything recorded.

        Raises :class:`~pmldesign.BudgetExceededError` (and records nothing) when the total
        would pass the budget.
        """
        matrix = as_mechanism(mechanism)
        attribute = self._attribute(reads)
        if matrix.shape[0] != self.shape[attribute]:
            raise InvalidInputError(
                f"mechanism: has {matrix.shape[0]} inputs, attribute {attribute} has "
                f"{self.shape[attribute]} categories"
            )
        if label is not None and not isinstance(label, str):
            raise InvalidInputError(f"label: a string, got {label!r}")
        epsilon, method = self._certify([*self._mechanisms, matrix],
                                        [*(r.reads for r in self._history), attribute])
        if epsilon > self.budget:
            raise BudgetExceededError(
                f"budget: this release would bring the certified total to {epsilon:.6g} nats "
                f"({method}), over the budget {self.budget:.6g}; it was not recorded"
            )
        self._mechanisms.append(matrix)
        self._history.append(Release(label, attribute, epsilon, method))
        return epsilon

    def _attribute(self, reads: Any) -> int:
        if reads is None:
            if len(self.shape) > 1:
                raise InvalidInputError(
                    f"reads: the record has {len(self.shape)} attributes; say which one the "
                    f"mechanism reads (reads=0 .. {len(self.shape) - 1})"
                )
            return 0
        if isinstance(reads, bool) or not isinstance(reads, int | np.integer) or not (
                0 <= reads < len(self.shape)):
            raise InvalidInputError(
                f"reads: an attribute index 0 .. {len(self.shape) - 1}, got {reads!r}"
            )
        return int(reads)

    def _certify(self, mechanisms: list[np.ndarray], reads: list[int]) -> tuple[float, str]:
        joint = composition.over_record(mechanisms, reads, self.shape)
        if joint.entries <= EXACT_MAX:
            return composition.capacity(joint, self._prior), "exact"
        return composition.bound(joint, self._prior), "bound"

    def to_json(self) -> str:
        """The accountant as JSON: prior, budget, and every release with its mechanism."""
        return json.dumps({
            "version": SCHEMA_VERSION,
            "budget": self.budget,
            "shape": list(self.shape),
            "prior": _prior_document(self._prior),
            "releases": [{"label": r.label, "reads": r.reads, "epsilon": r.epsilon,
                          "method": r.method, "mechanism": m.tolist()}
                         for r, m in zip(self._history, self._mechanisms, strict=True)],
        })

    @classmethod
    def from_json(cls, text: str) -> Accountant:
        """Load :meth:`to_json`'s document; every release is certified again (the stored totals
        are not trusted: a document whose totals do not hold is refused)."""
        try:
            data = json.loads(text)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"accountant: not JSON ({exc})") from None
        _check_document(data)
        prior = _prior_from(data["prior"])
        shape = data["shape"] if isinstance(prior, PriorSet) else None
        if not isinstance(prior, PriorSet):
            if prior.size != math.prod(data["shape"]):
                raise InvalidInputError(
                    f"accountant: prior has {prior.size} probabilities, shape {data['shape']} "
                    f"needs {math.prod(data['shape'])}"
                )
            prior = prior.reshape(data["shape"])
        accountant = cls(prior, data["budget"], shape=shape)
        for entry in data["releases"]:
            try:
                total = accountant.add(entry["mechanism"], entry["reads"], entry["label"])
            except BudgetExceededError as exc:
                raise InvalidInputError(f"accountant: release {entry['label']!r} passes the "
                                        f"document's budget ({exc})") from None
            if total > entry["epsilon"] and not math.isclose(total, entry["epsilon"],
                                                              rel_tol=1e-12):
                raise InvalidInputError(
                    f"accountant: the stored total {entry['epsilon']!r} of release "
                    f"{entry['label']!r} is below its certified total {total!r}"
                )
        return accountant

    def __repr__(self) -> str:
        return (f"Accountant(budget={self.budget:.6g}, epsilon={self.epsilon:.6g}, "
                f"releases={len(self._history)}, shape={self.shape})")


def _prior_document(prior: np.ndarray | PriorSet) -> Any:
    if not isinstance(prior, PriorSet):
        return prior.tolist()
    if prior.kind == "ball":
        return {"kind": "ball", "center": prior.center.tolist(), "radius": prior.radius}
    if prior.kind == "box":
        return {"kind": "box", "lower": prior.lower.tolist()}
    return {"kind": "vertices", "vertices": prior.vertices.tolist(),
            "reference": prior.reference.tolist()}


#: The fields of each kind of prior set in the document (the ``kind`` field aside).
_SET_FIELDS = {"ball": {"center", "radius"}, "box": {"lower"}, "vertices": {"vertices",
                                                                           "reference"}}


def _prior_from(document: Any) -> np.ndarray | PriorSet:
    if isinstance(document, list):
        return as_float_array(document, "accountant: prior", 1)
    kind = document.get("kind")
    if kind in _SET_FIELDS and set(document) - {"kind"} != _SET_FIELDS[kind]:
        raise InvalidInputError(f"accountant: a {kind} prior has the fields "
                                f"{sorted(_SET_FIELDS[kind])}, got "
                                f"{sorted(set(document) - {'kind'})}")
    if kind == "ball":
        return PriorSet.ball(document["center"], document["radius"])
    if kind == "box":
        return PriorSet.box(document["lower"])
    if kind == "vertices":
        return PriorSet.from_vertices(document["vertices"], document["reference"])
    raise InvalidInputError(f"accountant: unknown prior kind {kind!r}")


_FIELDS = {"version": int, "budget": float, "shape": list, "prior": (list, dict),
           "releases": list}
_RELEASE_FIELDS = {"label": (str, type(None)), "reads": int, "epsilon": float,
                   "method": str, "mechanism": list}


def _check_document(data: Any) -> None:
    """The document's fields and their types, before anything is used."""
    if not isinstance(data, dict):
        raise InvalidInputError("accountant: the document is not a JSON object")
    _check_fields(data, _FIELDS, "accountant")
    if data["version"] != SCHEMA_VERSION:
        raise InvalidInputError(f"accountant: version {data['version']!r} is not supported "
                                f"(expected {SCHEMA_VERSION})")
    if not all(isinstance(s, int) and not isinstance(s, bool) and s >= 1
               for s in data["shape"]) or not data["shape"]:
        raise InvalidInputError(f"accountant: shape must be a list of positive integers, got "
                                f"{data['shape']!r}")
    if isinstance(data["prior"], dict) and not isinstance(data["prior"].get("kind"), str):
        raise InvalidInputError("accountant: prior: a list of probabilities or an object with "
                                "a 'kind'")
    for index, entry in enumerate(data["releases"]):
        if not isinstance(entry, dict):
            raise InvalidInputError(f"accountant: releases[{index}] is not an object")
        _check_fields(entry, _RELEASE_FIELDS, f"accountant: releases[{index}]")
        if entry["method"] not in ("exact", "bound"):
            raise InvalidInputError(f"accountant: releases[{index}].method must be 'exact' or "
                                    f"'bound', got {entry['method']!r}")


def _check_fields(data: dict, fields: dict, where: str) -> None:
    missing = sorted(set(fields) - set(data))
    extra = sorted(set(data) - set(fields))
    if missing or extra:
        raise InvalidInputError(f"{where}: missing fields {missing}, unknown fields {extra}")
    for name, kind in fields.items():
        value = data[name]
        if kind is float:
            ok = isinstance(value, int | float) and not isinstance(value, bool)
        elif kind is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        else:
            ok = isinstance(value, kind)
        if not ok:
            raise InvalidInputError(f"{where}: field {name!r} has the wrong type "
                                    f"({type(value).__name__})")
