"""A base image the engine lacks is pulled by digest; an engine without a registry says so (real engine)."""

from __future__ import annotations

import time

import pytest
from streamt.errors import StreamtError
from streamt_kstreams import build
from streamt_kstreams.base_image import ensure_present
from streamt_kstreams.engine import client

pytestmark = [pytest.mark.docker]


@pytest.fixture
def engine(docker_host: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("DOCKER_HOST", docker_host)
    found = client()
    yield found
    found.close()


def test_the_pinned_base_is_pulled_and_an_engine_without_a_registry_is_e406(engine, tmp_path) -> None:
    # The stack's engine reaches no registry: the pull of the pinned digest must fail fast and clearly.
    assert not engine.images.list(name=build.PINNED.split("@")[0])
    started = time.monotonic()
    with pytest.raises(StreamtError) as caught:
        build.build(None, 30)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.code.code == "E406_CONNECTION_REFUSED" and diagnostic.details == {
        "reason": "base_image_pull_failed"
    }
    assert diagnostic.message.startswith(f"The Docker Engine could not pull the base image {build.PINNED} (")
    assert "registry-1.docker.io" not in diagnostic.message + str(diagnostic.suggestion)  # never the engine's text
    assert "--base-image sha256:<id>" in str(diagnostic.suggestion)
    assert time.monotonic() - started < 30  # bounded, and before any Maven run


def test_a_present_base_is_not_pulled_and_an_absent_id_cannot_be(engine, kstreams_base_image) -> None:
    ensure_present(engine, kstreams_base_image, time.monotonic() + 10)  # present: returns, nothing pulled
    with pytest.raises(StreamtError) as caught:
        ensure_present(engine, "sha256:" + "0" * 64, time.monotonic() + 10)
    assert caught.value.diagnostics[0].code.code == "E208_MISSING_CONFIG"
    assert "an image ID cannot be pulled" in caught.value.diagnostics[0].message


def test_the_cli_says_it_in_text_and_json(engine, streamt_cli, streamt_cli_text) -> None:
    unset = {"STREAMT_RUNNER_BASE_IMAGE": None, "STREAMT_KSTREAMS_BASE_IMAGE": None}
    outcome = streamt_cli("runtime", "build", "--timeout", "30", env=unset)
    (error,) = outcome.envelope["errors"]
    assert error["code"] == "E406_CONNECTION_REFUSED" and error["reason"] == "base_image_pull_failed"
    text = streamt_cli_text("runtime", "build", "--timeout", "30", env=unset)
    assert text.exit_code == 1 and f"could not pull the base image {build.PINNED}" in text.stderr
    assert "hint: Give the engine registry access" in text.stderr
