"""The one transport a command run may use: File or synchronous HTTP, from ``OPENLINEAGE_CONFIG``.

Transport environment variables alone never enable emission (``--emit-openlineage`` does), and
nothing else is read: no ``OPENLINEAGE_URL``, no ``openlineage.yml`` in the working directory, so
what emits is exactly the file the operator named. A File transport appends JSON Lines unless the
file says ``append: false``; an HTTP transport is bounded (5 s timeout, one retry) unless the file
sets its own ``timeout`` / ``retry``.
"""

from __future__ import annotations

import os
from typing import Any

import yaml

from streamt.runlineage.options import invalid

CONFIG_ENV = "OPENLINEAGE_CONFIG"
HTTP_DEFAULTS = {"timeout": 5.0, "retry": {"total": 1, "backoff_factor": 0.2, "status_forcelist": [500, 502, 503, 504]}}


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
    """An openlineage-python transport; any construction problem is E506 (never its raw text)."""
    try:
        from openlineage.client.transport.file import FileConfig, FileTransport
        from openlineage.client.transport.http import HttpConfig, HttpTransport
    except ImportError:
        raise invalid(
            "OpenLineage emission needs the openlineage-python client.", "pip install 'streamt[openlineage]'"
        ) from None
    try:
        if config["type"] == "file":
            return FileTransport(FileConfig.from_dict({"append": True, **config}))
        return HttpTransport(HttpConfig.from_dict({**HTTP_DEFAULTS, **config}))
    except Exception as exc:  # the client raises assorted types for bad settings; the class name is enough
        raise invalid(
            f"The OpenLineage {config['type']} transport cannot be built ({type(exc).__name__}).",
            "Check the transport settings in the OPENLINEAGE_CONFIG file.",
        ) from None
