"""Mechanism files as the data commands use them: read, then their stored claim re-certified.

A mechanism file's ``guarantee`` is a claim written next to the matrix; anyone can edit it. The
commands that use a file's mechanism (``privatize``, ``estimate``, ``certify``) re-certify the
claim from the matrix on load and refuse the file, naming both numbers, when the claim is
false: the PML of the mechanism for the stored prior (over the stored l1 ball when it has a
radius; the prior read as ``p / sum p``) exceeds the stored eps, or the radius is smaller than
eq. (7) of 003 gives for the stored delta and number of samples. A claim without a prior must
hold for every prior: it is checked against the local-DP epsilon.
"""

from __future__ import annotations

import math

import numpy as np

from .._errors import InvalidInputError
from ..certification import certify
from ..leakage import ldp_epsilon
from ..mechanism import Mechanism, load_mechanism
from ..uncertainty.estimation import l1_radius

#: Relative slack of the comparison of a stored eps with the certificate, which is an upper
#: bound a few ulps plus about 2N units of 2^-53 above the exact leakage
#: (:func:`pmldesign.certify`): a claim equal to the exact leakage, as a tight design's is,
#: must not be refused for that rounding. A claim false by less than this cannot be told from
#: rounding in floats.
SLACK = 1e-9


def load_checked(path: str, name: str = "--mechanism") -> Mechanism:
    """The mechanism of ``path`` after its stored guarantee is re-certified (see the module)."""
    mechanism = load_mechanism(path)
    stored = mechanism.guarantee
    if stored is None or stored.eps is None:
        return mechanism
    claimed, actual, what = _claim(mechanism)
    if actual > claimed + SLACK * max(1.0, claimed):
        raise InvalidInputError(
            f"{name}: {path} claims eps {claimed:.6g} but the mechanism's PML {what} is "
            f"{actual:.6g}; the guarantee stored in the file is false (edited, or not this "
            "mechanism's): design it again, or certify the matrix for the prior you mean")
    return mechanism


def _claim(mechanism: Mechanism) -> tuple[float, float, str]:
    """``(claimed eps, certified eps, what was certified)`` for a stored guarantee."""
    stored = mechanism.guarantee
    if stored.prior is None:
        return stored.eps, ldp_epsilon(mechanism.matrix), "for some prior (its local-DP eps)"
    prior = np.asarray(stored.prior, dtype=np.float64)
    if not (prior > 0).all() or not math.isfinite(prior.sum()):
        raise InvalidInputError("--mechanism: the stored prior must have every entry > 0 to "
                                "re-certify the stored eps")
    prior = prior / prior.sum()
    radius = stored.radius or 0.0
    if stored.delta and stored.n_samples:
        needed = l1_radius(stored.n_samples, prior.size, stored.delta)
        if radius < needed * (1 - SLACK):
            raise InvalidInputError(
                f"--mechanism: the stored radius {radius:.6g} is smaller than the {needed:.6g} "
                f"that {stored.n_samples} samples need for delta {stored.delta:g} (eq. (7) of "
                "003); the guarantee stored in the file is false")
    if radius > 0:
        cert = certify(mechanism.matrix, prior, radius, warn=False)
        return stored.eps, cert.worst_case_epsilon, f"over the stored ball (radius {radius:g})"
    epsilon = certify(mechanism.matrix, prior, warn=False).epsilon
    return stored.eps, epsilon, "for the stored prior"
