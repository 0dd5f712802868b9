"""The one transport a command run may use: File or synchronous HTTP, from ``OPENLINEAGE_CONFIG``.

Transport environment variables alone never enable emission (``--emit-openlineage`` does), and
nothing else is read: no ``OPENLINEAGE_URL``, no ``openlineage.yml`` in the working directory, so
what emits is exactly the file the operator named. A File transport appends JSON Lines unless the
file says ``append: false``; an HTTP transport has a 5 s timeout and one retry unless the file
sets its own ``timeout`` / ``retry``.

Whatever the file says, delivering one event (and closing the transport) has a hard total budget
of ``EVENT_BUDGET_SECONDS``: a receiver that stalls, answers one byte at a time or never ends
its answer costs the command at most that, then ``W112``. The HTTP transport's requests go
through the bounded HTTP layer (``streamt.bounded_http``: that deadline, a size cap on the
answer, its ``timeout`` capped at the budget), and each call runs in a worker thread that is
abandoned when the budget runs out, which also bounds what the layer does not see (a token
request of an OAuth provider, a ``log_file_path`` that blocks).
"""

from __future__ import annotations

import os
import threading
from typing import Any

import attrs
import yaml

from streamt.runlineage.options import invalid

CONFIG_ENV = "OPENLINEAGE_CONFIG"
HTTP_DEFAULTS = {"timeout": 5.0, "retry": {"total": 1, "backoff_factor": 0.2, "status_forcelist": [500, 502, 503, 504]}}
EVENT_BUDGET_SECONDS = 10.0


class DeliveryTimeout(Exception):
    """One OpenLineage call did not end within the event budget (its worker thread is abandoned)."""


@attrs.frozen
class BudgetedTransport:
    """An openlineage-python transport whose ``emit`` and ``close`` each end within ``budget`` seconds."""

    inner: Any
    budget: float

    def emit(self, event: Any) -> Any:
        return self._within(self.inner.emit, event)

    def close(self, timeout: float) -> Any:
        return self._within(self.inner.close, min(timeout, self.budget))

    def _within(self, call: Any, argument: Any) -> Any:
        outcome: dict[str, Any] = {}

        def run() -> None:
            try:
                outcome["value"] = call(argument)
            except Exception as exc:  # handed to the caller's thread, which turns it into W112
                outcome["error"] = exc

        worker = threading.Thread(target=run, name="openlineage-delivery", daemon=True)
        worker.start()
        worker.join(self.budget)
        if worker.is_alive():
            raise DeliveryTimeout(f"no answer within {self.budget:g} s")
        if "error" in outcome:
            raise outcome["error"]
        return outcome.get("value")


def transport_config() -> dict[str, Any]:
    path = os.environ.get(CONFIG_ENV)
    if not path:
        raise invalid(
            "OpenLineage emission needs an explicit File or HTTP transport.",
            f"Set {CONFIG_ENV} to a YAML file with `transport: {{type: file|http, ...}}`.",
        )
    try:
        with open(path, encoding="utf-8") as handle:
            document = yaml.safe_load(handle)
    except OSError as exc:
        raise invalid(f"{CONFIG_ENV} cannot be read ({exc.strerror}).", "Point it at a readable YAML file.") from None
    except yaml.YAMLError:
        raise invalid(f"{CONFIG_ENV} is not valid YAML.", "Fix the YAML syntax of the transport file.") from None
    transport = document.get("transport") if isinstance(document, dict) else None
    if not isinstance(transport, dict) or transport.get("type") not in ("file", "http"):
        raise invalid(
            f"{CONFIG_ENV} must declare transport.type file or http.",
            "Use `transport: {type: file, log_file_path: ...}` or `transport: {type: http, url: ...}`.",
        )
    return dict(transport)


def build_transport(config: dict[str, Any]) -> Any:
    """An openlineage-python transport within the event budget; a construction problem is E506 (never its text)."""
    try:
        from openlineage.client.transport.file import FileConfig, FileTransport
        from openlineage.client.transport.http import HttpConfig, HttpTransport
        from urllib3.util import Retry

        from streamt.bounded_http import BoundedAdapter, capped_deadline
    except ImportError:
        raise invalid(
            "OpenLineage emission needs the openlineage-python client.", "pip install 'streamt[openlineage]'"
        ) from None
    budget = capped_deadline(EVENT_BUDGET_SECONDS)
    try:
        if config["type"] == "file":
            return BudgetedTransport(FileTransport(FileConfig.from_dict({"append": True, **config})), budget)
        http = HttpConfig.from_dict({**HTTP_DEFAULTS, **config})
        http.timeout = min(float(http.timeout), budget)
        # Neither a Retry-After header nor the file's backoff may spend the budget asleep.
        retry = {**http.retry, "respect_retry_after_header": False, "backoff_max": budget / 4}
        http.adapter = BoundedAdapter(budget, max_retries=Retry(**retry))
        return BudgetedTransport(HttpTransport(http), budget)
    except Exception as exc:  # the client raises assorted types for bad settings; the class name is enough
        raise invalid(
            f"The OpenLineage {config['type']} transport cannot be built ({type(exc).__name__}).",
            "Check the transport settings in the OPENLINEAGE_CONFIG file.",
        ) from None
