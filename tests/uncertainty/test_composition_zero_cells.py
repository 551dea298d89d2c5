"""Priors with zero cells: plain and composed certificates and the accountant against brute force.

An input of prior 0 never occurs, so PML's maximum runs over the support:
``log max_{x in supp P} P(y|x) / P_Y(y)``. The reference materialises the joint mechanism entry
by entry as exact products of rationals (``tests/composition_reference.py``), takes the maximum
over the support's rows only and decides each reported figure with ``tests/exact_oracle.py``;
nothing of the library's streamed evaluation is reused.
"""

from __future__ import annotations

import json
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from composition_reference import check, random_mechanism, rational_joint
from exact_oracle import INF, compare_log, exact_log, rational_prior

import pmldesign as pml


def _support_ratios(rows, prior):
    """Per output, exact ``max_{x: P(x) > 0} M[x, y] / P_Y(y)`` (None: no input of the support
    gives ``y``), and the same with the maximum over every row (what ignoring the zero cells
    would give)."""
    q = rational_prior(prior)
    ratios, over_all = [], []
    for column in zip(*rows, strict=True):
        peak = max((c for c, w in zip(column, q, strict=True) if w > 0), default=Fraction(0))
        mass = sum(w * c for w, c in zip(q, column, strict=True))
        ratios.append(None if peak == 0 else peak / mass)
        over_all.append(None if peak == 0 else max(column) / mass)
    return ratios, over_all


def _prior_with_zeros(rng, n, zeros):
    prior = rng.dirichlet(np.ones(n))
    prior[rng.choice(n, size=zeros, replace=False)] = 0.0
    return prior / prior.sum()


def _exact_epsilon_max(prior):
    return exact_log(1 / min(p for p in rational_prior(prior) if p > 0))


def _exact_region(prior, epsilon):
    """Definition 4 of 003 over the support, the k smallest shares summed exactly."""
    support = sorted(p for p in rational_prior(prior) if p > 0)
    thresholds = [exact_log(1 / (1 - sum(support[:k]))) for k in range(len(support))]
    return sum(1 for t in thresholds if t <= epsilon)


CASES = [  # (sizes of the attributes, reads, outputs of each release, zero cells of the prior)
    ((4,), (0, 0), (3, 3), 1),
    ((3,), (0, 0, 0), (2, 3, 2), 1),
    ((2, 3), (0, 1), (2, 3), 2),
    ((3, 2), (0, 1, 0), (2, 2, 3), 2),
    ((2, 2, 3), (0, 1, 2), (2, 2, 2), 4),
    ((2, 3, 2), (2, 0, 1, 1), (2, 2, 3, 2), 5),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_composed_and_plain_certificates_take_the_maximum_over_the_support(case):
    sizes, reads, outputs, zero_cells = CASES[case]
    rng = np.random.default_rng(40 + case)
    n = math.prod(sizes)
    support_mattered = 0
    for trial in range(4):
        # mixed releases: structural zeros beside full-support (k-RR-like) mechanisms
        mechanisms = [random_mechanism(rng, sizes[r], k, zeros=(i + trial) % 3 != 2)
                      for i, (r, k) in enumerate(zip(reads, outputs, strict=True))]
        prior = _prior_with_zeros(rng, n, zero_cells)
        composed = pml.compose(*mechanisms, reads=None if len(sizes) == 1 else list(reads))
        rows = rational_joint(mechanisms, reads, sizes)
        ratios, over_all = _support_ratios(rows, prior)
        support_mattered += sum(a != b for a, b in zip(ratios, over_all, strict=True))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", pml.CompositionWarning)
            cert = pml.certify(composed, prior.reshape(sizes))
            plain = pml.certify(np.asarray(composed), prior)
            audit = pml.certify(np.asarray(composed), prior, exact=True)
        # the plain path certifies the materialised floats (each product rounded once)
        floats = [[Fraction(float(v)) for v in row] for row in np.asarray(composed)]
        plain_ratios = _support_ratios(floats, prior)[0]
        for c, exact in ((cert, ratios), (plain, plain_ratios), (audit, plain_ratios)):
            check(c.per_outcome, exact)
            used = [r for r in exact if r is not None]
            assert compare_log(max(used), c.epsilon) <= 0
            assert c.epsilon - exact_log(max(used)) <= 1e-9 * max(1.0, c.epsilon)
            assert compare_log(1 / min(p for p in rational_prior(prior) if p > 0),
                               c.epsilon_max) <= 0
            assert c.epsilon_max - _exact_epsilon_max(prior) <= 1e-12
            assert c.region == _exact_region(prior, c.epsilon)
            p_y = [sum(w * col for w, col in zip(rational_prior(prior), column, strict=True))
                   for column in zip(*rows, strict=True)]
            np.testing.assert_allclose(c.output_probabilities, [float(v) for v in p_y],
                                       rtol=1e-12, atol=1e-15)
        # the local-DP epsilon does not depend on the prior: every row counts
        for c, matrix in ((cert, rows), (plain, floats), (audit, floats)):
            worst_ldp = max(INF if min(col) == 0 else max(col) / min(col)
                            for col in zip(*matrix, strict=True) if max(col) > 0)
            assert (math.isinf(c.ldp_epsilon) if worst_ldp == INF
                    else compare_log(worst_ldp, c.ldp_epsilon) <= 0)
        assert cert.to_dict()["epsilon"] == cert.epsilon
    # a prior's zero cells left in the maximum would have reported more than the exact leakage
    assert support_mattered > 0


def test_a_zero_cell_on_the_only_input_that_gives_an_output_leaves_it_unused():
    mechanism = np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0], [0.0, 0.5, 0.5]])
    prior = [0.25, 0.75, 0.0]
    for cert in (pml.certify(mechanism, prior),
                 pml.certify(pml.compose(mechanism), prior)):
        assert cert.epsilon == 0.0 or cert.epsilon < 1e-12  # two identical rows: no leakage
        assert math.isnan(cert.per_outcome[2])
        assert cert.output_probabilities[2] == 0.0
        assert math.isinf(cert.ldp_epsilon)
        assert compare_log(Fraction(4), cert.epsilon_max) <= 0  # -log 0.25
        assert cert.epsilon_max - math.log(4) < 1e-12


def test_one_possible_record_leaks_nothing():
    rr = pml.randomized_response(3, eps=2.0)
    for cert in (pml.certify(rr, [0.0, 1.0, 0.0]), pml.certify(pml.compose(rr, rr),
                                                                [0.0, 1.0, 0.0])):
        assert cert.epsilon < 1e-12 and cert.epsilon_max < 1e-12 and cert.region == 1


def test_a_ball_around_a_prior_with_zero_cells_is_refused():
    rr = pml.randomized_response(3, eps=1.0)
    for mechanism in (rr, pml.compose(rr, rr)):
        with pytest.raises(pml.InvalidInputError, match="zero cells"):
            pml.certify(mechanism, [0.5, 0.5, 0.0], radius=0.1)
    with pytest.raises(pml.InvalidInputError, match="non-negative"):
        pml.certify(rr, [0.6, 0.6, -0.2])


def test_a_second_release_warning_looks_at_the_support_only():
    # structural zeros only in the row of the input that never occurs: no warning
    mechanism = np.array([[0.5, 0.5, 0.0], [0.4, 0.6, 0.0], [0.0, 0.0, 1.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", pml.CompositionWarning)
        pml.certify(mechanism, [0.5, 0.5, 0.0])
    cyclic = np.array([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.5, 0.0, 0.5], [0.2, 0.3, 0.5]])
    with pytest.warns(pml.CompositionWarning, match=r"would leak 1\.609 nats"):
        pml.certify(cyclic, [0.5, 0.3, 0.2, 0.0])  # twice pins the support down: -log 0.2


def test_accountant_totals_with_zero_cells_are_the_brute_force_certificates():
    rng = np.random.default_rng(9)
    prior = _prior_with_zeros(rng, 12, 4).reshape(2, 3, 2)
    releases = [(random_mechanism(rng, 3, 3, zeros=True), 1, "a"),
                (random_mechanism(rng, 2, 2, zeros=False), 0, None),
                (random_mechanism(rng, 3, 2, zeros=True), 1, "c"),
                (random_mechanism(rng, 2, 3, zeros=True), 2, "d")]
    acc = pml.Accountant(prior, budget=50.0)
    for k, (matrix, read, label) in enumerate(releases):
        total = acc.add(matrix, reads=read, label=label)
        # the releases so far, and a one-output release of every attribute nobody reads yet
        mechanisms = [m for m, _, _ in releases[:k + 1]] + [np.ones((s, 1)) for s in (2, 3, 2)]
        reads = [r for _, r, _ in releases[:k + 1]] + [0, 1, 2]
        ratios, _ = _support_ratios(rational_joint(mechanisms, reads, (2, 3, 2)), prior.ravel())
        check([total], [max(r for r in ratios if r is not None)])
        assert acc.history[-1].method == "exact"
    assert acc.epsilon == acc.history[-1].epsilon
    document = json.loads(acc.to_json())
    assert document["prior"] == prior.ravel().tolist()
    again = pml.Accountant.from_json(acc.to_json())
    assert [r.epsilon for r in again.history] == [r.epsilon for r in acc.history]
    assert again.shape == (2, 3, 2)
    first = acc.history[0].epsilon
    assert first > 0
    small = pml.Accountant(prior, budget=first / 2)
    with pytest.raises(pml.BudgetExceededError):
        small.add(releases[0][0], reads=1)
    assert small.history == () and small.epsilon == 0.0


def test_accountant_bound_with_zero_cells_is_above_the_exact_total(monkeypatch):
    from pmldesign.release import accountant as module

    monkeypatch.setattr(module, "EXACT_MAX", 4)
    rng = np.random.default_rng(3)
    prior = _prior_with_zeros(rng, 4, 1)
    mechanisms = [random_mechanism(rng, 4, 3, zeros=False) for _ in range(2)]
    acc = pml.Accountant(prior, budget=100.0)
    for m in mechanisms:
        acc.add(m)
    assert acc.history[-1].method == "bound"
    ratios, _ = _support_ratios(rational_joint(mechanisms, (0, 0), (4,)), prior)
    assert compare_log(max(r for r in ratios if r is not None), acc.epsilon) <= 0


def test_an_output_whose_products_underflow_on_the_support_is_still_certified():
    # on the support {(0, 0), (2, 2)} output (1, 1) has the scaled product (2e-200)^2 = 4e-400
    # at (0, 0), which underflows to 0 in floats but occurs: it must get a bound, never "unused"
    tiny = 1e-200
    release = np.array([[1 - tiny, tiny], [0.5, 0.5], [1.0, 0.0]])
    prior = np.zeros((3, 3))
    prior[0, 0] = prior[2, 2] = 0.5
    cert = pml.certify(pml.compose(release, release, reads=[0, 1]), prior)
    ratios, _ = _support_ratios(rational_joint([release, release], (0, 1), (3, 3)), prior.ravel())
    assert ratios[3] is not None and not math.isnan(cert.per_outcome[3])
    for value, ratio in zip(cert.per_outcome, ratios, strict=True):
        if ratio is None:
            assert math.isnan(value)
        else:
            assert compare_log(ratio, float(value)) <= 0


@pytest.mark.parametrize("tamper, message", [
    (lambda d: d.update(shape=[2, 2]), "needs 4"),
    (lambda d: d.update(prior=[[0.2, 0.1, 0.0], [0.3, 0.0, 0.4]]), "1-D"),
    (lambda d: d.update(prior={"kind": "ball", "radius": 0.1}), "fields"),
    (lambda d: d.update(prior={"kind": "vertices", "vertices": [[0.5, 0.5]]}), "fields"),
    (lambda d: d.update(budget=1e-6), "budget"),
])
def test_an_accountant_file_failing_its_schema_is_one_invalid_input_error(tamper, message):
    acc = pml.Accountant(np.array([[0.2, 0.1, 0.0], [0.3, 0.0, 0.4]]), budget=5.0)
    acc.add(pml.randomized_response(2, eps=1.0), reads=0, label="first")
    document = json.loads(acc.to_json())
    tamper(document)
    with pytest.raises(pml.InvalidInputError, match=message) as error:
        pml.Accountant.from_json(json.dumps(document))
    assert "\n" not in str(error.value)
    with pytest.raises(pml.InvalidInputError, match=r"reads=0 \.\. 1\)"):
        acc.add(pml.randomized_response(3, eps=1.0))


def test_cli_certifies_a_prior_with_zero_cells_and_refuses_a_ball_around_it(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    mechanism = tmp_path / "m.csv"
    mechanism.write_text("0.5,0.5,0\n0.25,0.75,0\n0,0,1\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}

    def run(*args):
        return subprocess.run([sys.executable, "-m", "pmldesign", "certify", str(mechanism),
                               *args], capture_output=True, text=True, env=env, timeout=300)

    proc = run("--prior", "0.5,0.5,0", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    # output 2 comes only from the third input, which never occurs; LDP eps inf (every row)
    assert out["per_outcome"][2] is None and out["ldp_epsilon"] is None
    # output 0 leaks the most: 0.5 / P_Y(0) = 0.5 / 0.375
    assert compare_log(Fraction(4, 3), out["epsilon"]) <= 0
    assert out["epsilon"] - math.log(4 / 3) < 1e-12
    proc = run("--prior", "0.5,0.5,0", "--radius", "0.1")
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: radius:") and proc.stderr.count("\n") == 1
