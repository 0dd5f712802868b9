"""Runs our CLI over one upstream corpus project and compares it with what the early streamt did."""

from __future__ import annotations

import io
import json
import os
from typing import Any

from shared_material import SHARED
from streamt.cli import run

CORPUS = SHARED / "compat" / "upstream-projects"


def expectations() -> dict[str, Any]:
    return json.loads((CORPUS / "expectations.json").read_text())


def target(entry: dict[str, Any]) -> dict[str, Any]:
    """The shorthand-normalised observation when there is one (our spec accepts those shorthands)."""
    return entry.get("observed_upstream_after_shorthand_normalization") or entry["observed_upstream"]


def _cli(argv: list[str]) -> dict[str, Any]:
    out = io.StringIO()
    run(argv, stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue())


def observe(name: str, entry: dict[str, Any]) -> dict[str, Any]:
    project = str(CORPUS / name)
    env = ["--env", entry["env_used_for_probe"]] if entry.get("env_used_for_probe") else []
    names = [*entry.get("env_vars_referenced", []), "STREAMT_ENV"]
    saved = {k: os.environ.pop(k) for k in names if k in os.environ}
    if "observed_upstream_after_shorthand_normalization" in entry:
        # That observation was made with every referenced variable set to a placeholder.
        os.environ.update({k: f"placeholder-{k.lower()}" for k in entry.get("env_vars_referenced", [])})
    try:
        validate = _cli(["-o", "json", "validate", "-p", project, *env])
        lineage = _cli(["-o", "json", "lineage", "-p", project, *env, "--format", "json"])
    finally:
        for k in names:
            os.environ.pop(k, None)
        os.environ.update(saved)
    data = validate["data"]
    return {
        "status": "valid" if validate["status"] == "ok" else "invalid",
        "error_codes": sorted({e["code"] for e in validate["errors"]}),
        "counts": {k: data[k] for k in ("sources", "models", "tests", "exposures")} if "counts" in data else None,
        "edges": sorted([e["from"], e["to"]] for e in lineage["data"].get("edges", [])),
        "lineage_ok": lineage["status"] == "ok",
    }


def compare(entry: dict[str, Any], ours: dict[str, Any]) -> dict[str, bool]:
    """Per aspect: does our result agree with upstream's? Aspects upstream did not record are omitted."""
    want = target(entry)
    result = {"status": ours["status"] == want["status"]}
    seed_codes = {c for c in want.get("error_codes", []) if "(" not in c}
    if seed_codes:
        result["error_codes"] = seed_codes <= set(ours["error_codes"])
    if "counts" in want:
        result["counts"] = ours["counts"] == want["counts"]
    if "lineage_edges" in want:
        result["edges"] = ours["edges"] == sorted(want["lineage_edges"])
    return result
