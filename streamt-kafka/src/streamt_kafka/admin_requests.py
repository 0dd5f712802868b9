"""Sending one protocol request through a kafka-python admin client and getting the decoded response.

kafka-python's admin methods send exactly these requests and then turn every response into nested
dicts (a CreateTopics response carries each new topic's full configuration, ~30 entries per topic;
a Metadata response per topic ACL sets): seconds of client CPU at thousands of topics. Callers here
read only the fields they need from the response itself. This module is the one place that reaches
into the client (kafka-python >= 3: its connection manager and controller routing).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


def send(admin: Any, request: Any) -> Any:
    """``request`` to the least loaded broker; the decoded response."""
    manager = admin._manager
    return manager.run(manager.send, request)


def send_to_controller(admin: Any, request: Any, error_codes: Callable[[Any], Iterable[int]]) -> Any:
    """``request`` to the controller (re-resolved and resent once when the answer says it moved, as
    kafka-python's own admin calls do); the decoded response, per-item errors left to the caller."""
    import kafka.errors as Errors

    def errors(response: Any) -> list[type[Exception]]:
        return [Errors.for_code(code) for code in error_codes(response)]

    return admin._manager.run(admin._send_request_to_controller, request, errors, False)
