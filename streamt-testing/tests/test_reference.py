"""docs/testing.md is generated from the kit's docstrings and lists every contract with its fixtures."""

from __future__ import annotations

from pathlib import Path

from streamt_testing import contracts
from streamt_testing.reference import HELPERS, render

PAGE = Path(__file__).resolve().parents[2] / "docs" / "testing.md"


def test_the_reference_page_is_generated_from_the_docstrings() -> None:
    assert PAGE.read_text() == render(), "regenerate it: python -m streamt_testing.reference > docs/testing.md"


def test_the_reference_lists_every_contract_with_its_fixtures() -> None:
    table = render().split("## The conformance kit", 1)[1]
    for name in contracts.__all__:
        assert f"| `{name}` |" in table
    for fixture in ("exporter_args", "state_backend_factory", "provider", "desired", "rule_plugin", "rule_codes"):
        assert f"`{fixture}`" in table, fixture


def test_every_helper_has_its_section() -> None:
    helpers = render().split("## Test helpers", 1)[1]
    for name in HELPERS:
        assert f"### `{name}`" in helpers, name
