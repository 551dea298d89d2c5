"""Progress on stderr: a design or comparison running past ``_io.PROGRESS_AFTER`` seconds shows
a spinner, silent under ``--quiet`` and ``--json`` and when stderr is not a terminal. The
threshold is forced to 0 here, so the wiring is tested without depending on timing."""

from __future__ import annotations

import pytest

from pmldesign.cli import _io, _quiet
from tests import cli_fuzz


class _Spinner:
    """Records what a spinner was asked to do."""

    def __init__(self, log: list, message: str) -> None:
        self.log, self.message = log, message

    def start(self) -> None:
        self.log.append(("start", self.message))

    def stop(self) -> None:
        self.log.append(("stop", self.message))


@pytest.fixture
def spinners(monkeypatch):
    log: list = []
    monkeypatch.setattr(_io, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(_io, "stderr_is_terminal", lambda: True)
    monkeypatch.setattr(_io, "new_spinner", lambda message: _Spinner(log, message))
    quiet = _quiet.is_quiet()
    _quiet.set_quiet(False)
    yield log
    _quiet.set_quiet(quiet)


DESIGN = ["design", "--prior", "0.4,0.3,0.2,0.1", "--eps", "0.5"]
COMPARE = ["compare", "--prior", "0.4,0.3,0.2,0.1", "--eps", "0.5"]


def _run(argv) -> None:
    outcome = cli_fuzz.run_cli(argv, timeout=120)
    assert outcome.code == 0, outcome.stderr


@pytest.mark.parametrize(("argv", "message"), [(DESIGN, "designing..."),
                                               (COMPARE, "comparing...")])
def test_a_long_run_shows_a_spinner_and_stops_it(spinners, argv, message):
    _run(argv)
    assert spinners == [("start", message), ("stop", message)]


@pytest.mark.parametrize("argv", [DESIGN, COMPARE])
def test_json_is_silent(spinners, argv):
    _run([*argv, "--json"])
    assert spinners == []


def test_quiet_is_silent(spinners):
    _run(["--quiet", *DESIGN])
    assert spinners == []


def test_no_terminal_is_silent(spinners, monkeypatch):
    monkeypatch.setattr(_io, "stderr_is_terminal", lambda: False)
    _run(DESIGN)
    assert spinners == []
