"""`streamt plugin new` for each kind, from a fresh venv's own `streamt`: editable-installed, listed, its tests pass."""

from __future__ import annotations

from pathlib import Path

import pytest
from distributions import KIT

KINDS = ("exporter", "rule", "state-backend", "provider")


@pytest.fixture(scope="module")
def scaffolded(make_venv, tmp_path_factory: pytest.TempPathFactory):
    venv = make_venv()
    where = tmp_path_factory.mktemp("scaffolded")
    roots = {}
    for kind in KINDS:
        written = venv.envelope("plugin", "new", kind, f"acme-{kind}", "--directory", where)
        assert written["status"] == "ok", written["errors"]
        roots[kind] = Path(written["data"]["path"])
    # The dev group each scaffold declares (pytest, streamt-testing), the kit from this checkout.
    venv.install(KIT, *(arg for root in roots.values() for arg in ("-e", root)))
    return venv, roots


def test_every_scaffolded_plugin_is_listed_with_its_core_range(scaffolded) -> None:
    venv, _roots = scaffolded
    listing = venv.envelope("plugins")
    assert listing["status"] == "ok", listing["errors"]
    listed = {p["name"]: p for p in listing["data"]["plugins"]}
    assert sorted(listed) == sorted(f"acme-{kind}" for kind in KINDS)
    assert all(p["core_requirement"] and p["plugins_dir"] is None for p in listed.values())
    assert listed["acme-exporter"]["provides"]["exporters"] == ["export acme-exporter"]
    assert listed["acme-state-backend"]["provides"]["backends"] == ["acme_state_backend"]
    assert listed["acme-provider"]["provides"]["kinds"] == ["acme_provider"]
    assert listed["acme-rule"]["provides"]["rules"][0].endswith("_ACME_RULE_VIOLATED")


@pytest.mark.parametrize("kind", KINDS)
def test_each_scaffolded_plugin_passes_its_own_tests(scaffolded, kind: str) -> None:
    venv, roots = scaffolded
    done = venv.pytest("tests", cwd=roots[kind])
    assert done.returncode == 0, done.stdout + done.stderr
