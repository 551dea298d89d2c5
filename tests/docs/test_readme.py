"""The README runs verbatim: every ```python block and every ```sh/```bash/```console block.

Shell blocks run with bash (``-e -o pipefail``) in a scratch directory laid out like the root of
a checkout after ``make demo``: the shipped ``examples/data/`` and a ``.venv`` that is the
environment running the tests, so ``.venv/bin/pmldesign`` and ``source .venv/bin/activate``
work as written; nothing is written into the checkout. Python blocks run as a script from a
directory outside the checkout (the installed package, not the source tree next to it) and from
the checkout root. Any later edit of the README is checked by the same tests.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
FENCE = re.compile(r"^```([A-Za-z]*)[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
SHELL = {"sh", "bash", "shell", "console"}


def readme_blocks(languages: set[str]) -> list[str]:
    """The bodies of the README's fenced blocks whose info string is in ``languages``."""
    text = README.read_text(encoding="utf-8")
    return [body for lang, body in FENCE.findall(text) if lang.lower() in languages]


def shell_script(body: str, lang: str = "sh") -> str:
    """A ```console block keeps only its ``$ `` lines (the rest is shown output)."""
    if lang != "console":
        return body
    return "\n".join(line[2:] for line in body.splitlines() if line.startswith("$ "))


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(MPLBACKEND="Agg", **extra)
    return env


def run(args: list[str], cwd: Path, env: dict[str, str], script: str | None = None):
    proc = subprocess.run(args, cwd=cwd, env=env, input=script, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, (
        f"README block failed (exit {proc.returncode}) in {cwd}\n--- stdout\n{proc.stdout}\n"
        f"--- stderr\n{proc.stderr}"
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def test_readme_starts_with_title_sentence_and_the_two_commands():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# pmldesign" and lines[1] == ""
    fence = lines.index("```")
    body = lines[2:fence]
    assert body[-1] == "" and sum(line.endswith(".") for line in body) == 1  # one sentence
    assert lines[fence + 1: fence + 4] == ["make demo", "make test", "```"]


@pytest.mark.parametrize("target", ["demo", "test", "docs"])
def test_make_targets_exist(target):
    proc = subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "is up to date" not in proc.stdout  # a phony target, not the docs/ directory


def test_readme_has_runnable_blocks():
    assert readme_blocks({"python"}), "no ```python block in README.md"
    assert readme_blocks(SHELL), "no ```sh block in README.md"


def test_the_quick_start_inputs_ship_with_the_checkout():
    """Every examples/... path the README names exists and is tracked by git (a fresh clone
    has it)."""
    text = README.read_text(encoding="utf-8")
    paths = sorted(set(re.findall(r"\bexamples/[\w./-]*\w", text)))
    assert paths
    for path in paths:
        assert (ROOT / path).exists(), path
    if shutil.which("git") and (ROOT / ".git").exists():
        files = [p for p in paths if (ROOT / p).is_file()]
        proc = subprocess.run(["git", "ls-files", "--error-unmatch", *files], cwd=ROOT,
                              capture_output=True, text=True)
        assert proc.returncode == 0, f"not committed: {proc.stderr}"


def test_relative_links_resolve():
    """Links from the README to files of the checkout (docs pages, examples) point somewhere."""
    text = README.read_text(encoding="utf-8")
    targets = [t.split("#")[0] for t in re.findall(r"\]\(([^)]+)\)", text)
               if "://" not in t and not t.startswith("#")]
    assert targets
    for target in targets:
        assert (ROOT / target).exists(), target


@pytest.fixture(scope="module")
def checkout_like(tmp_path_factory) -> Path:
    """A scratch directory with examples/data and .venv (the running environment)."""
    scripts = Path(sysconfig.get_path("scripts"))
    assert (scripts / "pmldesign").exists(), f"pmldesign is not installed in {scripts}"
    where = tmp_path_factory.mktemp("checkout")
    shutil.copytree(ROOT / "examples" / "data", where / "examples" / "data")
    (where / ".venv").symlink_to(scripts.parent, target_is_directory=True)
    return where


@pytest.mark.slow
def test_shell_blocks_run_verbatim(checkout_like):
    env = clean_env(PATH=f"{sysconfig.get_path('scripts')}{os.pathsep}{os.environ['PATH']}")
    text = README.read_text(encoding="utf-8")
    for lang, body in FENCE.findall(text):
        if lang.lower() in SHELL:
            script = shell_script(body, lang.lower())
            run(["bash", "-e", "-o", "pipefail", "-s"], checkout_like, env, script)


def test_python_blocks_run_outside_the_checkout(tmp_path):
    for i, body in enumerate(readme_blocks({"python"})):
        script = tmp_path / f"readme_{i}.py"
        script.write_text(body, encoding="utf-8")
        proc = run([sys.executable, str(script)], tmp_path, clean_env())
        assert proc.stdout.strip()


def test_python_blocks_run_from_the_checkout():
    for body in readme_blocks({"python"}):
        run([sys.executable, "-"], ROOT, clean_env(), body)
