"""The fixture plugin and the endpoints file contract."""

from __future__ import annotations

import json
import os

import pytest
from streamt_devstack.config import ENDPOINT_KEYS


def test_endpoints_file_has_exactly_the_documented_keys(stack):
    assert set(stack) == set(ENDPOINT_KEYS)
    path = os.environ.get("STREAMT_STACK_ENDPOINTS")
    if path or stack.get("kafka_bootstrap"):
        from streamt_devstack.config import ENDPOINTS_FILE

        on_disk = json.loads(ENDPOINTS_FILE.read_text())
        assert set(on_disk) == set(ENDPOINT_KEYS)


@pytest.mark.kafka
def test_marker_alone_ensures_the_service(stack):
    # The autouse requirement fixture started Kafka (or skipped/failed) because of the marker.
    assert stack["kafka_bootstrap"]
