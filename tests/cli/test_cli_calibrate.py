"""``pmldesign calibrate``: tables, JSON and exit code 2 on bad input or an unreachable target."""

from __future__ import annotations

import json
import math

import pytest

from pmldesign.cli.main import main


def run(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    out = capsys.readouterr()
    return exit_info.value.code, out.out, out.err


BASE = ["calibrate", "--target-eps", "1", "--delta", "1e-6", "--n-samples", "10000",
        "--alphabet-size"]


def test_json_output_is_eq_13(capsys):
    code, out, _ = run([*BASE, "4", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    beta = math.sqrt(2 / 10_000 * (math.log(14) + 6 * math.log(10)))  # eq. (7) of 003
    assert data["radius"] == pytest.approx(beta)
    assert data["design_epsilon"] == pytest.approx(math.log(math.e / (1 + beta / 2 * math.e)))
    assert data["method"] == "general" and data["feasible"] is True


def test_table_output_and_prior_estimate(capsys):
    code, out, _ = run(
        ["calibrate", "--target-eps", "0.2", "--delta", "1e-6", "--n-samples", "100000",
         "--alphabet-size", "4", "--prior-estimate", "0.3,0.25,0.25,0.2"],
        capsys,
    )  # fmt: skip
    assert code == 0
    assert "design eps" in out and "first-region" in out


def args(eps="1", delta="0.1", samples="10", alphabet="4"):
    return ["calibrate", "--target-eps", eps, "--delta", delta, "--n-samples", samples,
            "--alphabet-size", alphabet]  # fmt: skip


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (args(eps="0"), "target_eps"),
        (args(delta="1"), "delta"),
        (args(samples="0"), "n_samples"),
        (args(alphabet="1"), "alphabet_size"),
        ([*BASE, "4", "--prior-estimate", "0.97,0.01,0.01,0.01"], "samples"),
        (args(eps="0.01", delta="1e-6"), "at least"),
    ],
)
def test_bad_input_exits_2_with_one_line(argv, fragment, capsys):
    code, _, err = run(argv, capsys)
    assert code == 2
    assert err.startswith("error: ") and fragment in err and err.count("\n") == 1
