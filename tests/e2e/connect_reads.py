"""What a test reads back from a live Kafka Connect worker, asked again while its group rebalances."""

from __future__ import annotations

import time

import requests
from streamt_connect.client import rebalancing


def _payload(response: requests.Response) -> object:
    try:
        return response.json()
    except ValueError:
        return None


def stored_config(connect_url: str, name: str, rebalance_wait: float = 30) -> dict[str, str] | None:
    """The worker's stored config of connector ``name``, or None when it does not exist.

    A worker answers 409 during a rebalance and, right after a delete, 500 "a rebalance is expected":
    both mean "ask again" (the client's own rule, ``rebalancing``), neither means "absent".
    """
    deadline = time.monotonic() + rebalance_wait
    while True:
        response = requests.get(f"{connect_url}/connectors/{name}/config", timeout=10)
        if not rebalancing(response.status_code, _payload(response)) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    if response.status_code == 404:
        return None
    assert response.status_code == 200, f"Connect answered {response.status_code}"
    return response.json()
