"""Composed releases: several mechanisms applied independently to one record, certified exactly.

A record ``x = (x_0, ..., x_{A-1})`` has ``A`` attributes; release ``i`` applies mechanism ``M_i``
to attribute ``reads[i]`` with its own randomness. The composed mechanism has the tuples ``x``
as inputs and the tuples ``y = (y_1, ..., y_k)`` as outputs, with
``P(y | x) = prod_i M_i[x_{reads[i]}, y_i]``. With ``reads=None`` every release sees the same
single attribute (one column released ``k`` times): ``M[x, y] = prod_i M_i[x, y_i]``.

PML composes differently from DP: the leakage of ``y`` is
``log max_x P(y|x) / P_Y(y)`` for the joint output, so the second release is judged under the
posterior left by the first, and structural zeros of a mechanism (an input that cannot produce
an output) can pin the input down after two releases. The exact leakage of the joint output
needs no materialised matrix: with ``g_a(x_a) = prod_{i reads a} M_i[x_a, y_i]``, the column is
the product ``f(x) = prod_a g_a(x_a)`` over the product alphabet, so
``max_x f = prod_a max g_a`` and the leakage is ``-log sum_x Q(x) c(x)`` with
``c = prod_a g_a / max g_a`` (entries in ``[0, 1]``, largest exactly 1) and ``Q`` the prior read
as ``p / sum p``. The joint outputs are streamed in blocks.

Priors with zero cells. An input of prior 0 is not a possible record, so the maximum runs over
the support only: the leakage is ``log(max_{x in supp Q} c(x) / sum_x Q(x) c(x))`` (the sum
needs no change, a zero weight adds nothing). The support of a joint distribution need not be
a product set (Adult has 152 of its 160 sex x race x education combinations), so the maximum no
longer factorises over every attribute; it factorises within groups of the support (the other
attributes' combinations that occur with one and the same set of the largest attribute's
categories), block by block, over products of upper bounds of the ``h_a`` below, and is capped
at 1 (the exact value is at most 1).

Outward rounding. ``h_a = g_a / max g_a`` is bounded below entrywise: the products ``g_a`` are
formed rounding down (each product moved one ulp down with ``numpy.nextafter``) and the maximum
rounding up, and their quotient is moved one ulp down; ``c`` is the product of the ``h_a``
rounded down the same way. It is bounded above the same way, by the products rounded up over
the largest product rounded down (the exact maximum is at least it), each at most 1, and exactly
0 where a factor is. So the float ``c`` is at most the exact ``c`` entrywise, and every
mass ``min_{Q in S} <Q, c>`` below is a non-decreasing function of ``c`` bounded below by
:mod:`pmldesign.leakage.rounding` (``dot_lower``); the leakage ``log(S / mass)`` is then
rounded up by :func:`~pmldesign.leakage.rounding.ratio_log_upper`. Every figure is an upper
bound of the exact leakage of the given floats.

Sets of priors (Definition 5 of 003: the supremum over the set of each output's leakage).
For a vertex set the minimum mass is at a vertex; for a box ``{Q >= lower}`` it is
``<lower, c> + (1 - sum lower) min c``; for the l1 ball of radius beta around ``P`` (sum ``S``)
it is ``(1/S)(sum_x P_x c_x - s + s min c)`` with ``s = S beta / 2`` (the worst extreme point
moves ``s`` from the largest entry of ``c``, which is exactly 1, to the smallest). The first
difference is non-negative in exact arithmetic on a ball inside the simplex; a column whose float
lower bound of it is negative (within rounding of the radius limit) gets mass 0 and leakage
``inf``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from .._errors import InvalidInputError
from .._validation import as_mechanism, as_prior
from ..leakage import rounding
from ..mechanism import Mechanism
from .prior_set import PriorSet

if TYPE_CHECKING:
    from collections.abc import Iterable

    from numpy.typing import ArrayLike

#: Joint entries (inputs times outputs) of one block of the stream: 2^22 floats (32 MB) per
#: temporary, as :data:`pmldesign.leakage.rounding.BLOCK_ENTRIES`; re-tune with
#: ``benchmarks/bench_composition.py``.
BLOCK_ENTRIES = rounding.BLOCK_ENTRIES
#: Largest number of joint entries ``np.asarray`` materialises (2^24 floats, 128 MB).
MATERIALISE_MAX = 2**24


@dataclass(frozen=True, repr=False, eq=False)
class ComposedMechanism:
    """Independent releases of one record: the product mechanism, kept as its factors.

    Build it with :func:`compose`. It is accepted by :func:`pmldesign.certify` (exact, streamed
    over the joint outputs) and by ``np.asarray`` when it has at most :data:`MATERIALISE_MAX`
    entries (inputs times outputs).

    Attributes
    ----------
    mechanisms : tuple of numpy.ndarray
        The releases' row-stochastic matrices, in release order.
    reads : tuple of int
        The attribute each release reads.
    sizes : tuple of int
        The attributes' alphabet sizes; the inputs are the tuples over them (C order).
    labels : tuple of Mechanism or None
        The labelled mechanisms as given (None where a plain array was given).
    """

    mechanisms: tuple[np.ndarray, ...]
    reads: tuple[int, ...]
    sizes: tuple[int, ...]
    labels: tuple[Mechanism | None, ...]

    @property
    def shape(self) -> tuple[int, int]:
        """``(inputs, outputs)`` of the product mechanism."""
        return math.prod(self.sizes), math.prod(m.shape[1] for m in self.mechanisms)

    @property
    def entries(self) -> int:
        """Inputs times outputs: the size of the materialised matrix."""
        inputs, outputs = self.shape
        return inputs * outputs

    @property
    def inputs(self) -> tuple:
        """Input labels: the attribute's labels (one attribute), else tuples of them."""
        per = [self._input_labels(a) for a in range(len(self.sizes))]
        if len(per) == 1:
            return per[0]
        return tuple(tuple(per[a][i] for a, i in enumerate(t)) for t in np.ndindex(*self.sizes))

    @property
    def outputs(self) -> tuple:
        """Output labels: tuples of the releases' output labels, in C order."""
        per = [label.outputs if label is not None else tuple(range(m.shape[1]))
               for m, label in zip(self.mechanisms, self.labels, strict=True)]
        return tuple(tuple(per[i][j] for i, j in enumerate(t))
                     for t in np.ndindex(*[m.shape[1] for m in self.mechanisms]))

    def _input_labels(self, attribute: int) -> tuple:
        for read, label in zip(self.reads, self.labels, strict=True):
            if read == attribute and label is not None:
                return label.inputs
        return tuple(range(self.sizes[attribute]))

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        if self.entries > MATERIALISE_MAX:
            inputs, outputs = self.shape
            raise InvalidInputError(
                f"mechanism: the composed mechanism has {inputs} x {outputs} = {self.entries} "
                f"entries, more than {MATERIALISE_MAX} can be materialised; certify it with "
                "pml.certify, which streams its outputs"
            )
        columns = self._outputs(0, self.shape[1])
        matrix = np.ones((*self.sizes, self.shape[1]))
        for factor, read, chosen in zip(self.mechanisms, self.reads, columns, strict=True):
            matrix *= _along(factor[:, chosen], read, len(self.sizes))
        matrix = matrix.reshape(-1, self.shape[1])
        return matrix if dtype is None else matrix.astype(dtype)

    def _outputs(self, start: int, stop: int) -> tuple[np.ndarray, ...]:
        """Each release's output index for the joint outputs ``start:stop``."""
        return np.unravel_index(np.arange(start, stop), [m.shape[1] for m in self.mechanisms])

    def factors(self, start: int, stop: int, ceilings: bool = False
                ) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray], np.ndarray]:
        """``(scaled, ceiling, plain, used)`` for the joint outputs ``start:stop``, one entry per
        attribute ``a``: ``scaled[a]`` (categories x outputs) is at most and ``ceiling[a]`` (only
        with ``ceilings``, else empty) at least ``h_a = g_a / max g_a`` entrywise (module
        docstring), ``plain[a]`` is ``g_a`` in floats; ``used`` is False where the exact column
        is 0 (the output never occurs)."""
        columns = self._outputs(start, stop)
        used = np.ones(stop - start, dtype=bool)
        scaled, ceiling, plain = [], [], []
        for a in range(len(self.sizes)):
            low = high = None
            for matrix, read, chosen in zip(self.mechanisms, self.reads, columns, strict=True):
                if read != a:
                    continue
                factor = matrix[:, chosen]
                if low is None:
                    low, high = factor, factor
                else:
                    low = np.maximum(rounding.down(low * factor), 0.0)
                    # exactly 0 only where a factor is 0 (a product may underflow to 0)
                    high = np.where((high == 0) | (factor == 0), 0.0, rounding.up(high * factor))
            peak = high.max(axis=0)
            used &= peak > 0
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = rounding.down(low / np.where(peak > 0, peak, 1.0))
            scaled.append(np.maximum(ratio, 0.0))
            if ceilings:
                ceiling.append(_ceiling(low, high))
            plain.append(low)
        return scaled, ceiling, plain, used

    def constant(self, start: int, stop: int) -> np.ndarray:
        """Joint outputs whose every factor column is constant and positive: leakage 0 for
        every prior."""
        columns = self._outputs(start, stop)
        flags = np.ones(stop - start, dtype=bool)
        for matrix, chosen in zip(self.mechanisms, columns, strict=True):
            flags &= rounding.constant_columns(matrix)[chosen]
        return flags

    def blocks(self) -> list[tuple[int, int]]:
        """``(start, stop)`` of the joint outputs in blocks of about :data:`BLOCK_ENTRIES`."""
        inputs, outputs = self.shape
        width = max(2, BLOCK_ENTRIES // max(1, inputs))
        return [(s, min(s + width, outputs)) for s in range(0, outputs, width)]

    def __repr__(self) -> str:
        inputs, outputs = self.shape
        return (f"ComposedMechanism({len(self.mechanisms)} releases, reads={list(self.reads)}, "
                f"{inputs} inputs x {outputs} outputs)")


def _ceiling(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Entrywise ``>= g / max g`` and ``<= 1`` for exact columns ``low <= g <= high``: ``high``
    over the largest ``low`` (at most the exact maximum), rounded up; 1 where that largest
    ``low`` underflowed to 0, and exactly 0 where ``high`` is (the exact entry is 0)."""
    floor = low.max(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.minimum(rounding.up(high / np.where(floor > 0, floor, 1.0)), 1.0)
    return np.where(high == 0, 0.0, np.where(floor > 0, ratio, 1.0))


def _along(matrix: np.ndarray, axis: int, attributes: int) -> np.ndarray:
    """``matrix`` (attribute values x outputs) shaped to broadcast along ``axis`` of the
    product alphabet, with the outputs last."""
    shape = [1] * attributes + [matrix.shape[1]]
    shape[axis] = matrix.shape[0]
    return matrix.reshape(shape)


def compose(*mechanisms: ArrayLike, reads: Iterable[int] | None = None) -> ComposedMechanism:
    """Compose independent releases of one record into one mechanism.

    Parameters
    ----------
    *mechanisms : array_like or Mechanism
        Row-stochastic matrices, one per release, applied with independent randomness.
    reads : sequence of int, optional
        The attribute each mechanism reads (``0 .. A-1``, each read at least once): the inputs
        are then the tuples of the attributes' categories, and the prior is their joint
        distribution (an array of shape ``N_0 x ... x N_{A-1}``, whose cells may be 0 for
        combinations that never occur, or a PriorSet over the flattened product in C order).
        None (default): every release reads the same attribute (the same column released
        several times).

    Returns
    -------
    ComposedMechanism
        ``P(y | x) = prod_i M_i[x_{reads[i]}, y_i]``, kept as its factors; certify it with
        :func:`pmldesign.certify` (exact over every joint output, streamed in blocks).

    Examples
    --------
    >>> import pmldesign as pml
    >>> rr = pml.randomized_response(2, eps=1.0)
    >>> twice = pml.compose(rr, rr)
    >>> twice.shape  # one attribute, two outputs each
    (2, 4)
    >>> round(pml.certify(twice, [0.5, 0.5]).epsilon, 6)  # both outputs agree: log(2 e^2/(e^2+1))
    0.566219
    >>> pml.compose(rr, rr, reads=[0, 1]).shape  # two attributes, one release each
    (4, 4)
    >>> equal = [[0.5, 0.0], [0.0, 0.5]]  # two attributes always equal: cells (0, 1), (1, 0) are 0
    >>> round(pml.certify(pml.compose(rr, rr, reads=[0, 1]), equal).epsilon, 6)  # as twice
    0.566219
    """
    if not mechanisms:
        raise InvalidInputError("mechanisms: give at least one mechanism to compose")
    matrices, labels = [], []
    for index, mechanism in enumerate(mechanisms):
        if isinstance(mechanism, ComposedMechanism):
            raise InvalidInputError(
                f"mechanisms: argument {index} is already composed; pass the releases' "
                "mechanisms themselves (compose(*a.mechanisms, m, reads=...))"
            )
        matrices.append(as_mechanism(mechanism, f"mechanisms[{index}]"))
        labels.append(mechanism if isinstance(mechanism, Mechanism) else None)
    if reads is None:
        rows = {m.shape[0] for m in matrices}
        if len(rows) > 1:
            raise InvalidInputError(
                f"mechanisms: with reads=None every mechanism reads the same attribute and needs "
                f"the same number of inputs, got {sorted(rows)}; give reads=[...] for several "
                "attributes"
            )
        order = (0,) * len(matrices)
    else:
        order = _as_reads(reads, len(matrices))
    sizes = []
    for attribute in range(max(order) + 1):
        rows = {m.shape[0] for m, r in zip(matrices, order, strict=True) if r == attribute}
        if len(rows) != 1:
            raise InvalidInputError(
                f"reads: the mechanisms reading attribute {attribute} have {sorted(rows)} "
                "inputs; every mechanism reading one attribute needs one row per category"
            )
        sizes.append(rows.pop())
    return ComposedMechanism(tuple(matrices), order, tuple(sizes), tuple(labels))


def _as_reads(reads: Any, count: int) -> tuple[int, ...]:
    """Validated ``reads``: one attribute index per mechanism, covering ``0 .. A-1``."""
    if isinstance(reads, str | bytes) or not hasattr(reads, "__len__"):
        raise InvalidInputError(f"reads: a list of attribute indices, one per mechanism, "
                                f"got {reads!r}")
    values = list(reads)
    if len(values) != count:
        raise InvalidInputError(
            f"reads: one attribute index per mechanism ({count}), got {len(values)}"
        )
    out = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
            raise InvalidInputError(f"reads: attribute indices are integers >= 0, got {value!r}")
        out.append(int(value))
    missing = sorted(set(range(max(out) + 1)) - set(out))
    if missing:
        raise InvalidInputError(
            f"reads: attribute {missing[0]} is read by no mechanism; number the attributes "
            "that are released 0 .. A-1 and marginalise the prior over the others (an "
            "attribute nobody reads changes no leakage)"
        )
    return tuple(out)


def joint_prior(composed: ComposedMechanism, prior: Any) -> np.ndarray:
    """The prior over the composed mechanism's inputs, flattened in C order and validated."""
    if isinstance(prior, PriorSet):
        raise InvalidInputError("prior: a PriorSet is not a fixed prior")
    array = np.asarray(prior, dtype=float) if not hasattr(prior, "to_numpy") else np.asarray(
        prior.to_numpy(), dtype=float)
    if array.ndim > 1 and array.shape != composed.sizes:
        raise InvalidInputError(
            f"prior: the joint prior has shape {array.shape}, the releases read attributes of "
            f"sizes {composed.sizes}; give one axis per attribute in the order of reads"
        )
    return as_prior(array.reshape(-1), "prior", size=composed.shape[0], zeros=True)


def check_set(composed: ComposedMechanism, prior_set: PriorSet) -> None:
    """A PriorSet must be over the flattened product alphabet."""
    if prior_set.size != composed.shape[0]:
        raise InvalidInputError(
            f"prior: the prior set is over {prior_set.size} symbols, the composed mechanism has "
            f"{composed.shape[0]} joint inputs ({' x '.join(map(str, composed.sizes))})"
        )


def contract(weights: np.ndarray, factors: list[np.ndarray]) -> np.ndarray:
    """``sum_x weights[x] prod_a factors[a][x_a, y]`` in floats: the attributes are summed out
    from the last (``weights`` has shape ``sizes``, ``factors[a]`` is categories x outputs)."""
    total = np.einsum("...k,ky->...y", weights, factors[-1])
    for factor in reversed(factors[:-1]):
        total = np.einsum("...ky,ky->...y", total, factor)
    return total


def contract_lower(weights: np.ndarray, factors: list[np.ndarray]) -> np.ndarray:
    """Per output, a float ``<=`` the exact :func:`contract` of non-negative floats.

    Every exact term ``weights[x] prod_a factors[a][x_a, y]`` reaches the float result through
    at most ``A`` products and ``sum_a (n_a - 1)`` additions, fewer than ``n = N + A`` roundings
    (``N`` the joint inputs), in whatever order ``einsum`` sums; so, as for one sum of ``n``
    products (:func:`pmldesign.leakage.rounding.sum_lower`, Higham Sec. 3.1), the exact value
    is at least ``(fl - 2 n eta) (1 - 2 (n + 1) u)``.
    """
    return rounding.sum_lower(contract(weights, factors), weights.size + len(factors))


def _smallest_lower(scaled: list[np.ndarray]) -> np.ndarray:
    """Per output, a float ``<=`` the smallest entry of the exact scaled column (the product
    of each attribute's smallest entry)."""
    low = scaled[0].min(axis=0)
    for factor in scaled[1:]:
        low = rounding.down(low * factor.min(axis=0))
    return low


@dataclass(frozen=True)
class _Support:
    """A joint prior's support arranged for its maximum: ``axis`` is the largest attribute, the
    combinations of the ``others`` that occur are ``prefixes`` (one index array per other
    attribute), and ``groups`` pairs the prefixes (rows of ``prefixes``) that occur with one and
    the same set of ``axis`` categories with that set."""

    axis: int
    others: tuple[int, ...]
    prefixes: tuple[np.ndarray, ...]
    groups: tuple[tuple[np.ndarray, np.ndarray], ...]


def _support(prior: np.ndarray, sizes: tuple[int, ...]) -> _Support:
    """:class:`_Support` of a flattened prior over the product of ``sizes``."""
    axis = int(np.argmax(sizes))
    others = tuple(a for a in range(len(sizes)) if a != axis)
    cells = np.moveaxis(prior.reshape(sizes) > 0, axis, -1).reshape(-1, sizes[axis])
    occurs = np.flatnonzero(cells.any(axis=1))
    prefixes = np.unravel_index(occurs, [sizes[a] for a in others]) if others else ()
    patterns, inverse = np.unique(cells[occurs], axis=0, return_inverse=True)
    groups = tuple((np.flatnonzero(inverse.ravel() == g), np.flatnonzero(pattern))
                   for g, pattern in enumerate(patterns))
    return _Support(axis, others, tuple(prefixes), groups)


def _support_peak(ceiling: list[np.ndarray], support: _Support) -> np.ndarray:
    """Per output, a float ``>=`` the largest entry of the exact scaled column over the
    support's tuples, capped at 1, and exactly 0 where every tuple has a factor 0 (the output
    never occurs).

    Within a group the tuples are every prefix with every category of its set, so their
    largest product is the largest prefix product times the largest category's ceiling. The
    products are formed rounding to nearest, which is monotone: the largest float bounds every
    tuple's float product, and each of those is ``A - 1`` roundings of factors in ``[0, 1]``,
    each within ``u`` relative and ``eta`` absolute (gradual underflow), so the exact maximum
    is at most ``(fl + (A - 1) eta)(1 + gamma_{A-1})``, below
    :func:`~pmldesign.leakage.rounding.sum_upper` of the largest with ``n = A``. Whether a
    tuple's exact product is positive is decided on the factors' signs (an underflowed product
    of positive factors still counts).
    """
    prefix = positive = None
    for attribute, rows in zip(support.others, support.prefixes, strict=True):
        factor = ceiling[attribute][rows]
        prefix = factor if prefix is None else prefix * factor
        positive = factor > 0 if positive is None else positive & (factor > 0)
    last = ceiling[support.axis]
    largest = np.zeros(last.shape[1])
    occurs = np.zeros(last.shape[1], dtype=bool)
    for members, categories in support.groups:
        best = last[categories].max(axis=0)
        if prefix is None:  # one attribute: the support is a set of its categories
            largest = np.maximum(largest, best)
            occurs |= best > 0
        else:
            largest = np.maximum(largest, prefix[members].max(axis=0) * best)
            occurs |= positive[members].any(axis=0) & (best > 0)
    peak = np.minimum(rounding.sum_upper(largest, len(ceiling)), 1.0)
    return np.where(occurs, peak, 0.0)


def _set_leakage(prior_set: PriorSet, sizes: tuple[int, ...],
                 scaled: list[np.ndarray]) -> np.ndarray:
    """The supremum over the set of the leakage of the scaled columns (lower bounds of the
    exact ones), rounded up (module docstring)."""
    if prior_set.kind == "vertices":
        return np.max([rounding.ratio_log_upper(rounding.total_bounds(vertex)[1],
                                                contract_lower(vertex.reshape(sizes), scaled))
                       for vertex in prior_set.vertices], axis=0)
    smallest = _smallest_lower(scaled)
    if prior_set.kind == "box":
        lower = prior_set.lower
        slack = Fraction(1) - sum((Fraction(v) for v in lower.tolist()), Fraction(0))
        slack_low = max(0.0, float(rounding.down(float(slack))))
        floor = rounding.down(smallest * slack_low)
        mass = rounding.down(contract_lower(lower.reshape(sizes), scaled) + floor)
        return rounding.ratio_log_upper(1.0, np.maximum(mass, 0.0))
    center, beta = prior_set.center, prior_set.radius
    low_s, high_s = rounding.total_bounds(center)
    shift_low = rounding.down(rounding.down(low_s * beta) * 0.5)
    shift_high = rounding.up(rounding.up(high_s * beta) * 0.5)
    # exactly, sum_x P_x c_x - s >= min P - s >= 0 on a ball inside the simplex; a column whose
    # float lower bound of it is negative (within rounding of the radius limit) gets mass 0
    above = rounding.down(contract_lower(center.reshape(sizes), scaled) - shift_high)
    mass = rounding.down(np.maximum(above, 0.0) + rounding.down(smallest * shift_low))
    mass = np.where(above >= 0, mass, 0.0)
    return rounding.ratio_log_upper(high_s, np.maximum(mass, 0.0))


def evaluate(composed: ComposedMechanism, prior: np.ndarray,
             prior_set: PriorSet | None = None) -> tuple[np.ndarray, np.ndarray | None,
                                                         np.ndarray]:
    """``(leakage, worst, p_y)`` over every joint output in one pass: the leakage at the prior
    (flattened, validated; zero cells are left out of the maximum), its supremum over
    ``prior_set`` (None without one; its priors have full support), both upper bounds (module
    docstring), and ``P_Y`` in floats (informational)."""
    weights = (prior / math.fsum(prior)).reshape(composed.sizes)
    support = None if np.all(prior > 0) else _support(prior, composed.sizes)
    total = rounding.total_bounds(prior)[1]
    leak, worst, p_y = [], [], []
    for start, stop in composed.blocks():
        scaled, ceiling, plain, used = composed.factors(start, stop, support is not None)
        constant = composed.constant(start, stop)
        numerator: float | np.ndarray = total
        if support is not None:
            peak = _support_peak(ceiling, support)
            used &= peak > 0
            numerator = rounding.up(total * peak)
        with np.errstate(invalid="ignore"):  # 0 / 0: an output no input of the support gives
            values = [rounding.ratio_log_upper(numerator,
                                               contract_lower(prior.reshape(composed.sizes),
                                                              scaled))]
        if prior_set is not None:
            values.append(_set_leakage(prior_set, composed.sizes, scaled))
        for array in values:
            array[constant] = 0.0
            array[~used] = np.nan
        leak.append(values[0])
        worst.append(values[-1])
        p_y.append(contract(weights, plain))
    return (np.concatenate(leak), None if prior_set is None else np.concatenate(worst),
            np.concatenate(p_y))


def mutual_information(composed: ComposedMechanism, prior: np.ndarray,
                       p_y: np.ndarray) -> float:
    """``I(X; Y) = H(Y) - H(Y | X)`` in nats in floats (informational): given ``x`` the
    releases are independent, so ``H(Y | X = x)`` is the sum of the rows' entropies
    ``H(M_i[x_{reads[i]}, :])``, averaged over the attribute's marginal prior."""
    weights = (prior / math.fsum(prior)).reshape(composed.sizes)
    axes = range(len(composed.sizes))
    conditional = 0.0
    for matrix, read in zip(composed.mechanisms, composed.reads, strict=True):
        marginal = weights.sum(axis=tuple(a for a in axes if a != read))
        with np.errstate(divide="ignore", invalid="ignore"):
            rows = -np.sum(np.where(matrix > 0, matrix * np.log(np.where(matrix > 0, matrix,
                                                                              1.0)), 0.0),
                           axis=1)
        conditional += float(marginal @ rows)
    with np.errstate(divide="ignore", invalid="ignore"):
        output = -math.fsum(np.where(p_y > 0, p_y * np.log(np.where(p_y > 0, p_y, 1.0)),
                                     0.0).tolist())
    return max(0.0, output - conditional)


def over_record(mechanisms: list[np.ndarray], reads: list[int], sizes: tuple[int, ...]
                ) -> ComposedMechanism:
    """Validated releases over a whole record with attributes of ``sizes``: every attribute
    nobody reads gets a one-output constant release, which leaks nothing (and makes every
    attribute read, as :func:`compose` requires)."""
    mechanisms, reads = list(mechanisms), list(reads)
    for a, size in enumerate(sizes):
        if a not in reads:
            mechanisms.append(np.ones((size, 1)))
            reads.append(a)
    return ComposedMechanism(tuple(mechanisms), tuple(reads), tuple(sizes),
                             (None,) * len(mechanisms))


def bound(composed: ComposedMechanism, prior: np.ndarray | PriorSet) -> float:
    """A sound upper bound of the composed leakage without the joint outputs' stream:
    ``min_i (eps_i + sum_{j != i} ldp_j)``, the PML of one release (exact, over the prior or the
    set) plus the local-DP epsilons of the others.

    Proof: for a joint output ``y`` the numerator ``max_x prod_j M_j[x, y_j]`` (``x`` over the
    prior's support) is at most
    ``max_x M_i[x, y_i] prod_{j != i} max M_j[., y_j]`` and, for every prior ``Q``, the
    denominator ``sum_x Q(x) prod_j M_j[x, y_j]`` is at least
    ``sum_x Q(x) M_i[x, y_i] prod_{j != i} min M_j[., y_j]``; their ratio is at most
    ``e^{l_i(y_i)} prod_{j != i} max M_j[., y_j] / min M_j[., y_j]``.
    """
    from ..leakage.measures import _ldp_epsilon

    ldp = [_ldp_epsilon(m) for m in composed.mechanisms]
    best = math.inf
    for i in range(len(composed.mechanisms)):
        own = capacity(over_record([composed.mechanisms[i]], [composed.reads[i]],
                                   composed.sizes), prior)
        others = math.fsum(v for j, v in enumerate(ldp) if j != i)
        best = min(best, float(rounding.up(own + others)))
    return best


def capacity(composed: ComposedMechanism, prior: np.ndarray | PriorSet) -> float:
    """The certified leakage of ``composed`` for the prior, or its supremum over the set."""
    if isinstance(prior, PriorSet):
        reference = prior.center if prior.kind == "ball" else prior.reference
        values = evaluate(composed, reference, prior)[1]
    else:
        values = evaluate(composed, prior)[0]
    return max(0.0, float(np.nanmax(values)))
