"""Building a Kafka admin client from runtime config, and naming its failures.

Provider errors are classified into the seed's codes and never echoed raw:
a broker message can carry hostnames or principal names, and a connection
error can carry the bootstrap list.

kafka-python reports a cluster it could not bootstrap from the same way whether nothing listens
(refused) or a broker accepts the connection and never answers (stalled, or a listener of another
protocol): after the bootstrap timeout, "Unable to bootstrap". The two need different fixes, so a
failed bootstrap probes the addresses once: one that accepts a TCP connection is
``E429_SERVICE_DEADLINE_EXCEEDED``, the timeout code of every other service; none is ``E406``.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from streamt.sdk import Codes, StreamtError

# streamt's runtime.kafka keys -> kafka-python client keys.
_CLIENT_KEYS = {
    "security_protocol": "security_protocol",
    "sasl_mechanism": "sasl_mechanism",
    "sasl_username": "sasl_plain_username",
    "sasl_password": "sasl_plain_password",
    "ssl_ca_location": "ssl_cafile",
    "ssl_certificate_location": "ssl_certfile",
    "ssl_key_location": "ssl_keyfile",
    "ssl_key_password": "ssl_password",
}

REQUEST_TIMEOUT_MS = 15_000
# An unreachable cluster must fail in seconds, not after kafka-python's 30 s default with growing backoff.
BOOTSTRAP_TIMEOUT_MS = 8_000
RECONNECT_BACKOFF_MAX_MS = 1_000
# How long to keep trying to reach the cluster, for users whose brokers answer slowly (a tunnel, a
# cold managed cluster) or who want a down cluster reported sooner (CI, tests of unreachable brokers).
CONNECT_TIMEOUT_ENV = "STREAMT_KAFKA_CONNECT_TIMEOUT"
MAX_CONNECT_TIMEOUT_SECONDS = 300


def bootstrap_timeout_ms(environ: Mapping[str, str] = os.environ) -> int:
    """The bootstrap timeout: ``STREAMT_KAFKA_CONNECT_TIMEOUT`` seconds when set, else ``BOOTSTRAP_TIMEOUT_MS``."""
    raw = environ.get(CONNECT_TIMEOUT_ENV, "").strip()
    if not raw:
        return BOOTSTRAP_TIMEOUT_MS
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds <= MAX_CONNECT_TIMEOUT_SECONDS:
        raise StreamtError(
            Codes.E900_USAGE_ERROR,
            f"{CONNECT_TIMEOUT_ENV} must be a number of seconds greater than 0 and at most "
            f"{MAX_CONNECT_TIMEOUT_SECONDS}.",
            f"Unset it for the default of {BOOTSTRAP_TIMEOUT_MS // 1000} seconds.",
        )
    return max(1, round(seconds * 1000))


def client_config(kafka_runtime: dict[str, Any]) -> dict[str, Any]:
    """kafka-python settings for a ``runtime.kafka`` mapping."""
    servers = kafka_runtime.get("bootstrap_servers")
    if isinstance(servers, (list, tuple)):
        servers = ",".join(servers)
    if not servers:
        raise StreamtError(
            Codes.E208_MISSING_CONFIG,
            "runtime.kafka.bootstrap_servers is not set.",
            "Set runtime.kafka.bootstrap_servers for this environment.",
        )
    config: dict[str, Any] = {
        "bootstrap_servers": str(servers).split(","),
        "client_id": "streamt",
        "request_timeout_ms": REQUEST_TIMEOUT_MS,
        "bootstrap_timeout_ms": bootstrap_timeout_ms(),
        "reconnect_backoff_max_ms": RECONNECT_BACKOFF_MAX_MS,
    }
    for ours, theirs in _CLIENT_KEYS.items():
        value = kafka_runtime.get(ours)
        if value is not None:
            config[theirs] = value.upper() if ours == "security_protocol" else value
    return config


# kafka-python's bootstrap loop retries a broker that refused the credentials until the bootstrap
# timeout and then reports a timeout: a wrong password would read as an unreachable cluster, 8 s later.
# The loop logs each failed attempt with its exception, and the broker either answers the
# SaslAuthenticate request with an error or just closes the connection while it is in flight. Two log
# filters watch for both and end the bootstrap at once with an authentication error.
_MANAGER_LOGGER = "kafka.net.manager"
_CONNECTION_LOGGER = "kafka.net.connection"
_SASL_AUTHENTICATE = 36  # Kafka API key of SaslAuthenticate


class _AuthWatch:
    def __init__(self, refused: tuple[type[BaseException], ...], error: type[BaseException]) -> None:
        self.refused = refused
        self.error = error
        self.closed_while_authenticating = False

    def on_connection(self, record: logging.LogRecord) -> bool:
        """``Connection lost`` with a SaslAuthenticate request still unanswered: the broker hung up on it."""
        args = record.args if isinstance(record.args, tuple) else ()
        parser = getattr(args[0], "parser", None) if args else None
        pending = getattr(parser, "in_flight_requests", ())
        if any(getattr(header, "request_api_key", None) == _SASL_AUTHENTICATE for header in pending):
            self.closed_while_authenticating = True
        return True

    def on_manager(self, record: logging.LogRecord) -> bool:
        for arg in record.args if isinstance(record.args, tuple) else ():
            if isinstance(arg, self.refused):
                raise arg
        if self.closed_while_authenticating:
            raise self.error("the broker closed the connection while authenticating")
        return True


@contextmanager
def _auth_failures_raise() -> Iterator[None]:
    from kafka import errors

    watch = _AuthWatch(
        (errors.SaslAuthenticationFailedError, errors.AuthorizationError), errors.SaslAuthenticationFailedError
    )
    hooks = (
        (_MANAGER_LOGGER, watch.on_manager, logging.WARNING),
        (_CONNECTION_LOGGER, watch.on_connection, logging.ERROR),
    )
    restore = []
    for name, check, needed in hooks:
        logger = logging.getLogger(name)
        restore.append((logger, check, logger.level))
        logger.addFilter(check)
        if not logger.isEnabledFor(needed):
            logger.setLevel(needed)  # a filter only sees records that are created
    try:
        yield
    finally:
        for logger, check, level in restore:
            logger.removeFilter(check)
            logger.setLevel(level)


@contextmanager
def admin_client(kafka_runtime: dict[str, Any], request_timeout_ms: int | None = None) -> Iterator[Any]:
    """An open ``KafkaAdminClient``; failures become structured, secret-free errors. ``request_timeout_ms``
    replaces ``REQUEST_TIMEOUT_MS`` for a client whose requests the broker needs longer to answer."""
    from kafka import KafkaAdminClient

    config = client_config(kafka_runtime)
    if request_timeout_ms is not None:
        config["request_timeout_ms"] = request_timeout_ms
    try:
        with _auth_failures_raise():
            client = KafkaAdminClient(**config)
    except Exception as exc:
        failure = classify(exc, "connect to Kafka")
        if failure.diagnostics[0].code == Codes.E406_CONNECTION_REFUSED and _accepts(config["bootstrap_servers"]):
            raise _stalled(config["bootstrap_timeout_ms"]) from None
        raise failure from None
    try:
        yield client
    finally:
        client.close()


PROBE_SECONDS = 1.0
_PROBED = 3  # a long bootstrap list costs at most this many probes


def _accepts(servers: list[str]) -> bool:
    """Whether one of the first bootstrap addresses accepts a TCP connection (closed at once)."""
    for server in servers[:_PROBED]:
        host, _, port = server.strip().rpartition(":")
        try:
            with socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_SECONDS):
                return True
        except (OSError, ValueError):
            continue
    return False


def _stalled(timeout_ms: int) -> StreamtError:
    return StreamtError(
        Codes.E429_SERVICE_DEADLINE_EXCEEDED,
        f"Kafka accepted the connection but did not answer within {timeout_ms / 1000:g} s.",
        "Check that runtime.kafka.bootstrap_servers names a Kafka listener of this security_protocol (a TLS or "
        f"SASL listener stays silent to a plaintext client) and that the broker is not hung; {CONNECT_TIMEOUT_ENV} "
        "waits longer for a slow one.",
    )


def classify(exc: BaseException, doing: str) -> StreamtError:
    """Map a kafka-python exception to a seed code without its raw message."""
    name = type(exc).__name__
    text = str(exc).lower()
    if "sasl" in name.lower() or "authentication" in name.lower() or "authorization" in name.lower():
        return StreamtError(
            Codes.E404_AUTH_FAILED,
            f"Kafka refused the credentials while trying to {doing}.",
            "Check runtime.kafka.sasl_* for this environment.",
        )
    if "ssl" in name.lower() or "ssl" in text:
        return StreamtError(
            Codes.E405_SSL_ERROR,
            f"The TLS handshake with Kafka failed while trying to {doing}.",
            "Check runtime.kafka.ssl_* and the broker certificate.",
        )
    if name in ("NoBrokersAvailable", "KafkaConnectionError", "KafkaTimeoutError", "NodeNotReadyError"):
        return StreamtError(
            Codes.E406_CONNECTION_REFUSED,
            f"Kafka did not answer while trying to {doing}.",
            "Check that the brokers are reachable (runtime.kafka.bootstrap_servers).",
        )
    return StreamtError(
        Codes.E407_DEPLOY_ERROR,
        f"Kafka failed while trying to {doing} ({name}).",
        "Re-run with STREAMT_LOG_LEVEL=DEBUG for the error class; the raw broker message is not shown.",
    )
