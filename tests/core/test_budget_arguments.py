"""eps, delta and radius are numbers: every public callable that takes one refuses a string
(``float`` would parse ``"1"``) and a bool (``True`` is not a budget) with a one-line
:class:`~pmldesign.InvalidInputError`, whatever else it is given.

The table below holds one valid call per callable; each budget argument is replaced by each bad
value in turn. A coverage test finds every public callable with such a parameter (``pmldesign``,
``pmldesign.linear``, ``pmldesign.additive``, methods and constructors of the public classes), so
a new one must join the table.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import pmldesign as pml
from pmldesign import additive, linear

BUDGET_NAMES = {"eps", "delta", "radius", "target_eps", "design_eps", "budget", "delta2"}
BAD = ["0.5", "1", True, False, b"1", np.str_("0.5"), np.bool_(True)]
#: Frozen results the library builds (their fields are its output, not a user's budget).
RESULTS = {"Calibration", "Certificate", "Comparison", "EstimationComparison", "Guarantee",
           "GaussianGuarantee"}

P = [0.4, 0.3, 0.2, 0.1]
M = pml.randomized_response(4, 1.0).tolist()
SAMPLES = [0, 1, 2, 3] * 30
HULL = pml.PriorSet.from_vertices([P, [0.25] * 4])
CERTIFICATE = pml.certify(M, P)

#: name -> (callable, positional arguments, keyword arguments); budgets given by keyword.
CALLS = {
    "Accountant.__init__": (pml.Accountant, (P,), {"budget": 1.0}),
    "Certificate.satisfies": (CERTIFICATE.satisfies, (), {"eps": 1.0}),
    "PriorSet.ball": (pml.PriorSet.ball, (P,), {"radius": 0.01}),
    "PriorSet.from_samples": (pml.PriorSet.from_samples, (SAMPLES,), {"delta": 0.1}),
    "PriorSet.from_counts": (pml.PriorSet.from_counts, ([30, 30, 30, 30],), {"delta": 0.1}),
    "PriorSet.__init__": (pml.PriorSet, ("ball", np.array(P)),
                          {"center": np.array(P), "radius": 0.01}),
    "binary_mechanism": (pml.binary_mechanism, (0.4,), {"eps": 0.5, "radius": 0.01}),
    "calibrate": (pml.calibrate, (), {"target_eps": 1.0, "delta": 1e-3, "n_samples": 10**6,
                                      "alphabet_size": 4}),
    "calibrate_from_samples": (pml.calibrate_from_samples, (SAMPLES,),
                               {"target_eps": 2.0, "delta": 0.1, "alphabet_size": 4}),
    "certify": (pml.certify, (M, P), {"radius": 0.01}),
    "certify samples": (pml.certify, (M,), {"samples": SAMPLES, "delta": 0.1}),
    "compare": (pml.compare, (P,), {"eps": 0.5, "radius": 0.01}),
    "design": (pml.design, (P,), {"eps": 0.5, "radius": 0.01}),
    "design_from_samples": (pml.design_from_samples, (SAMPLES,),
                            {"target_eps": 2.0, "delta": 0.1}),
    "design_ldp": (pml.design_ldp, (P,), {"eps": 0.5}),
    "epsilon_after_estimation": (pml.epsilon_after_estimation, (),
                                 {"design_eps": 0.5, "radius": 0.01}),
    "extremal_mechanism": (pml.extremal_mechanism, (P,), {"eps": 0.05}),
    "failure_probability": (pml.failure_probability, (),
                            {"design_eps": 0.5, "target_eps": 1.0, "n_samples": 10**5,
                             "alphabet_size": 4}),
    "l1_radius": (pml.l1_radius, (10**4, 4), {"delta": 1e-3}),
    "ldp_polytope": (pml.ldp_polytope, (3,), {"eps": 0.5}),
    "leakage_capacity": (pml.leakage_capacity, (M, P), {"radius": 0.01}),
    "leakage_sensitivity": (pml.leakage_sensitivity, (M, P), {"radius": 0.01}),
    "lipschitz_bound": (pml.lipschitz_bound, (M, P), {"radius": 0.01}),
    "maximize_mutual_information": (pml.maximize_mutual_information, (P,),
                                    {"eps": 0.5, "radius": 0.01}),
    "pml_polytope": (pml.pml_polytope, (P,), {"eps": 0.5, "radius": 0.01}),
    "privacy_region": (pml.privacy_region, (P,), {"eps": 0.5}),
    "randomized_response": (pml.randomized_response, (4,), {"eps": 0.5}),
    "rr_for_pml": (pml.rr_for_pml, (P,), {"eps": 0.5, "radius": 0.01}),
    "samples_needed": (pml.samples_needed, (),
                       {"design_eps": 0.5, "target_eps": 1.0, "delta": 1e-3,
                        "alphabet_size": 4}),
    "sensitivity_bound": (pml.sensitivity_bound, (), {"eps": 0.5, "radius": 0.01, "prior": P}),
    "tail_probability": (pml.tail_probability, (M, P), {"eps": 0.5}),
    "worst_case_leakage": (pml.worst_case_leakage, (M, P), {"radius": 0.01}),
    "histogram_noise_scale": (linear.histogram_noise_scale, (), {"eps": 1.0, "alpha": 0.1}),
    "noise_scale": (linear.noise_scale, (linear.haar(4),), {"eps": 1.0, "alpha": 0.05}),
    "binary_laplace_epsilon": (additive.binary_laplace_epsilon, (1.0, 0.3), {"radius": 0.01}),
    "binary_laplace_scale": (additive.binary_laplace_scale, (), {"eps": 1.0, "p_min": 0.3,
                                                                 "radius": 0.01}),
    "gaussian_guarantee": (additive.gaussian_guarantee, (),
                           {"eps": 1.0, "sigma": 1.5, "prior_estimate": [0.5, 0.5],
                            "n_samples": 1000, "delta2": 1e-6}),
    "gaussian_guarantee_paper": (additive.gaussian_guarantee_paper, (),
                                 {"eps": 1.0, "sigma": 1.5, "prior_estimate": [0.5, 0.5],
                                  "n_samples": 1000, "delta2": 1e-6}),
    "gaussian_violation_probability": (additive.gaussian_violation_probability, (),
                                       {"eps": 1.0, "sigma": 1.5, "prior": [0.5, 0.5],
                                        "radius": 0.01}),
    "pldp_delta": (additive.pldp_delta, (), {"eps": 1.0, "sigma": 1.5}),
    "pldp_sigma": (additive.pldp_sigma, (), {"eps": 1.0, "delta": 1e-6}),
}


def _public_with_budgets():
    for module in (pml, linear, additive):
        for name in module.__all__:
            value = getattr(module, name)
            functions = [(name, value)] if inspect.isfunction(value) else []
            if inspect.isclass(value) and name not in RESULTS:
                functions = [(f"{name}.{attr}", getattr(member, "__func__", member))
                             for attr, member in vars(value).items()
                             if (inspect.isfunction(member) or isinstance(member, classmethod))
                             and (attr == "__init__" or not attr.startswith("_"))]
            for qualified, function in functions:
                if BUDGET_NAMES & set(inspect.signature(function).parameters):
                    yield qualified, function


def test_every_public_callable_with_a_budget_is_swept():
    found = {name for name, _ in _public_with_budgets()}
    assert found <= {name.split(" ")[0] for name in CALLS}, found - set(CALLS)
    assert len(found) >= 35


CASES = [(name, key, bad) for name, (_, _, kwargs) in CALLS.items()
         for key in sorted(BUDGET_NAMES & set(kwargs)) for bad in BAD]


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name", sorted(CALLS))
def test_the_valid_call_runs(name):
    function, args, kwargs = CALLS[name]
    function(*args, **kwargs)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize(("name", "key", "bad"), CASES,
                         ids=[f"{n}-{k}-{b!r}" for n, k, b in CASES])
def test_string_and_bool_budgets_are_refused(name, key, bad):
    function, args, kwargs = CALLS[name]
    with pytest.raises(pml.InvalidInputError, match=rf"^{key}: ") as caught:
        function(*args, **{**kwargs, key: bad})
    assert "\n" not in str(caught.value)

