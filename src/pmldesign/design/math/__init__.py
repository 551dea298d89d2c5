"""The math of mechanism design, stated once: feasible sets, closed forms, baselines."""
