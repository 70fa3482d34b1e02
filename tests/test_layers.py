"""Dependencies point one way: server → infra → domain; domain needs only stdlib + msgspec."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def imported_top_levels(package: str) -> dict[str, set[str]]:
    """For each module of a package: the top-level names of every absolute import in it."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
        found[str(path.relative_to(ROOT))] = names
    return found


def test_the_scan_sees_imports() -> None:
    modules = imported_top_levels("server")
    assert any("infra" in names for names in modules.values())
    assert any("domain" in names for names in modules.values())


def test_domain_imports_only_the_standard_library_and_msgspec() -> None:
    allowed = set(sys.stdlib_module_names) | {"msgspec", "domain"}
    offenders = {
        module: sorted(names - allowed)
        for module, names in imported_top_levels("domain").items()
        if names - allowed
    }
    assert offenders == {}


@pytest.mark.parametrize(
    "package, forbidden", [("infra", {"server"}), ("domain", {"infra", "server"})]
)
def test_no_layer_imports_one_above_it(package: str, forbidden: set[str]) -> None:
    offenders = {
        module: sorted(names & forbidden)
        for module, names in imported_top_levels(package).items()
        if names & forbidden
    }
    assert offenders == {}
