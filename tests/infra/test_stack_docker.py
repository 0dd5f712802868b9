"""The stack's Docker Engine: reachable on its own socket, no bridge network, a runnable Java 17 base."""

from __future__ import annotations

import os
import uuid

import pytest

docker = pytest.importorskip("docker")


@pytest.fixture
def client(docker_host):
    c = docker.DockerClient(base_url=docker_host, timeout=30)
    yield c
    c.close()


@pytest.mark.skipif(bool(os.environ.get("STREAMT_DEVSTACK_DOCKER_HOST")), reason="someone else's engine, used as is")
def test_engine_has_no_bridge_network(client):
    # --bridge=none: only the built-in host and none networks exist; nothing is NATed.
    assert sorted(n.name for n in client.networks.list()) == ["host", "none"]


def test_base_image_runs_java_17_with_host_networking(client, kstreams_base_image):
    assert kstreams_base_image.startswith("sha256:")
    name = f"streamt-stack-test-{uuid.uuid4().hex[:8]}"
    out = client.containers.run(
        kstreams_base_image, ["java", "-version"], name=name, network_mode="host", remove=True, stderr=True
    )
    assert b'version "17.' in out
    assert not client.containers.list(all=True, filters={"name": name})
