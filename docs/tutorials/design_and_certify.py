# %% [markdown]
# # Design and certify
#
# A survey asks people which of four plans they use. The share of each plan is known from
# last year's census, (0.4, 0.3, 0.2, 0.1): that is the **prior**. We want to collect the
# answers under a privacy guarantee and keep as much information as possible. This tutorial
# certifies a familiar mechanism, designs the optimal one, makes it robust to a prior that is
# only approximately known, and exports the result. (Run it as a script,
# `python docs/tutorials/design_and_certify.py`, or open it as a notebook with jupytext.)

# %%
import json

import numpy as np

import pmldesign as pml

prior = np.array([0.4, 0.3, 0.2, 0.1])

# %% [markdown]
# ## Certify randomized response
#
# Randomized response with local-DP epsilon 1 keeps the true answer with probability
# $e / (e + 3)$. Under PML, for this prior, it leaks less than its LDP epsilon:

# %%
rr = pml.randomized_response(4, eps=1.0)
cert = pml.certify(rr, prior)
print(cert)
assert cert.epsilon < cert.ldp_epsilon

# %% [markdown]
# `per_outcome` is the leakage of every answer: the rarest plan leaks most, because seeing it
# moves an attacker's belief furthest from the prior. The privacy region and `epsilon_max`
# place the budget on the prior's scale (see the guide's section on privacy regions):

# %%
print("region thresholds:", np.round(pml.region_thresholds(prior), 4))
print("epsilon_max (publishing the raw answer):", round(pml.epsilon_max(prior), 4))

# %% [markdown]
# ## Design the optimal mechanism at the same PML budget
#
# `pml.design` maximises the mutual information between the answer and the released value
# among all mechanisms that are eps-PML for the prior. The result carries its certified
# leakage and a certified upper bound on the optimum.

# %%
eps = cert.epsilon
best = pml.design(prior, eps)
print(repr(best))  # in a notebook, `best` alone shows it as a table

# %%
print(f"utility {best.utility:.4f} nats (upper bound {best.upper_bound:.4f}, exact: {best.exact})")
print(f"randomized response at the same PML budget: {cert.mutual_information:.4f} nats")
assert pml.certify(best.mechanism, prior).epsilon <= eps  # re-certify independently

# %% [markdown]
# The optimal mechanism makes some answers impossible from some inputs (zeros in the matrix):
# under PML that is allowed as long as each released value stays likely enough overall.
# Its LDP epsilon is therefore large or infinite. `pml.compare` puts the three candidates
# side by side at one budget:

# %%
for c in pml.compare(prior, eps).contenders:
    print(f"{c.name:22s} utility {c.utility:.4f}  PML eps {c.epsilon:.4f}  "
          f"LDP eps {c.ldp_epsilon:.4f}")

# %% [markdown]
# ## A deterministic merge
#
# Releasing only which of two groups the answer falls in, {plan 0, plan 3} or
# {plan 1, plan 2}, is deterministic, yet it is log 2-PML because each group has probability
# 1/2. Its LDP epsilon is infinite: it offers nothing against an attacker who already knows
# more than the prior.

# %%
merge = np.array([[1, 0], [0, 1], [0, 1], [1, 0]], dtype=float)
merged = pml.certify(merge, prior)
print(f"PML eps {merged.epsilon:.4f} (log 2 = {np.log(2):.4f}), LDP eps {merged.ldp_epsilon}")

# %% [markdown]
# ## The prior is only approximately known
#
# Suppose this year's shares may differ from the census by up to 0.05 in l1 distance. A
# mechanism designed for the exact prior can leak more than eps for a nearby prior; designing
# over the ball of radius 0.05 guarantees eps for every prior in it.

# %%
radius = 0.05
print("optimal design, worst case over the ball:",
      round(pml.certify(best.mechanism, prior, radius=radius).worst_case_epsilon, 4))
robust = pml.design(prior, eps, radius=radius)
robust_cert = pml.certify(robust.mechanism, prior, radius=radius)
print("robust design, worst case over the ball: ", round(robust_cert.worst_case_epsilon, 4))
print(f"utility: {robust.utility:.4f} nats (was {best.utility:.4f} for the exact prior)")
assert robust_cert.worst_case_epsilon <= eps

# %% [markdown]
# ## Export
#
# Every result has `to_dict()` for JSON (and an HTML view in notebooks). The command-line
# equivalent is `pmldesign design --prior 0.4,0.3,0.2,0.1 --eps ... --radius 0.05 --json`.

# %%
record = {"prior": prior.tolist(), "eps": eps, "radius": radius, "design": robust.to_dict()}
print(json.dumps(record)[:200], "...")
