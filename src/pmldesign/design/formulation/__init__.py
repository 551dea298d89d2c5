"""The feasible sets written for a solver: CVXPY models and compact LPs."""
