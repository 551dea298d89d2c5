"""One version, read from the package metadata; a changelog in the Keep a Changelog format."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import pmldesign as pml

ROOT = Path(__file__).resolve().parents[2]


def test_version_has_one_source():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pml.__version__ == version("pmldesign")
    assert re.fullmatch(r"\d+\.\d+\.\d+", declared["project"]["version"])
    done = subprocess.run([sys.executable, "-m", "pmldesign", "--version"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"pmldesign, version {pml.__version__}"
    source = (ROOT / "src" / "pmldesign" / "__init__.py").read_text(encoding="utf-8")
    assert not re.search(r"^__version__\s*=", source, re.MULTILINE)  # no second copy


def test_changelog_follows_keep_a_changelog():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog\n") and "Keep a Changelog" in text
    assert "semantic versioning" in text
    releases = re.findall(r"^## \[([^\]]+)\]", text, re.MULTILINE)
    assert releases[0] == "Unreleased"
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", r) for r in releases[1:]) and releases[1:]
    kinds = set(re.findall(r"^### (\w+)", text, re.MULTILINE))
    assert kinds <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}

