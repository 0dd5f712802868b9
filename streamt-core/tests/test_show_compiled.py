"""`show model` carries the compiled view (topic with defaults applied, artifacts)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from shared_material import SHARED

EXAMPLES = SHARED / "spec" / "examples"
STREAMT = str(Path(sys.executable).with_name("streamt"))


def _show(model: str, **env: str) -> dict:
    done = subprocess.run(
        [STREAMT, "-o", "json", "show", "model", model, "-p", str(EXAMPLES / "payments-pipeline")],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=60,
    )
    return json.loads(done.stdout)


@pytest.mark.skipif(not EXAMPLES.exists(), reason="shared/ is not beside the repository")
def test_show_model_includes_the_compiled_topic_and_artifacts() -> None:
    envelope = _show("payments_clean")
    assert envelope["status"] == "ok", envelope
    data = envelope["data"]
    assert data["topic"]["partitions"] == 12
    assert sorted(a["kind"] for a in data["artifacts"]) == ["flink_job", "topic"]
    assert all(a["checksum"].startswith("sha256:") for a in data["artifacts"])


@pytest.mark.skipif(not EXAMPLES.exists(), reason="shared/ is not beside the repository")
def test_show_model_without_its_compiler_plugin_still_shows_the_declaration() -> None:
    envelope = _show("payments_clean", STREAMT_DISABLED_PLUGINS="flink")
    assert envelope["status"] == "ok", envelope
    assert envelope["data"]["artifacts"] is None
    (warning,) = [w for w in envelope["warnings"] if w["code"] == "W901_PLUGIN_WARNING"]
    assert "E903_PLUGIN_REQUIRED" in warning["message"]
    assert "streamt[flink]" in warning["suggestion"]
