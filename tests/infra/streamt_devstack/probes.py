"""Readiness checks that speak each service's real protocol (never just "the port is open")."""

from __future__ import annotations

import base64
import json
import socket
import struct
import urllib.error
import urllib.request
from typing import Any

_CLIENT_ID = b"streamt-devstack"


def _kafka_call(sock: socket.socket, api_key: int, version: int, corr: int, body: bytes) -> bytes:
    # Request header v1: api_key, api_version, correlation_id, nullable client_id.
    header = struct.pack(">hhih", api_key, version, corr, len(_CLIENT_ID)) + _CLIENT_ID
    payload = header + body
    sock.sendall(struct.pack(">i", len(payload)) + payload)
    size = struct.unpack(">i", _recv_exact(sock, 4))[0]
    data = _recv_exact(sock, size)
    got = struct.unpack(">i", data[:4])[0]
    if got != corr:
        raise OSError(f"kafka: correlation id {got} != {corr}")
    return data[4:]


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise OSError("kafka: connection closed")
        buf += chunk
    return bytes(buf)


def _read_string(data: bytes, off: int) -> tuple[str | None, int]:
    n = struct.unpack_from(">h", data, off)[0]
    off += 2
    if n < 0:
        return None, off
    return data[off : off + n].decode(), off + n


def kafka_metadata(host: str, port: int, timeout: float = 3.0) -> dict[str, Any]:
    """ApiVersions v0 then Metadata v4 (the oldest Metadata a 4.x broker still serves).

    Returns the brokers and controller; a broker that answers Metadata with at least one broker
    has joined its KRaft quorum and can serve clients.
    """
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        body = _kafka_call(sock, 18, 0, 1, b"")
        error = struct.unpack_from(">h", body, 0)[0]
        if error:
            raise OSError(f"kafka: ApiVersions error {error}")
        # Metadata v4: topics = [] (no topics, just brokers), allow_auto_topic_creation=false.
        body = _kafka_call(sock, 3, 4, 2, struct.pack(">i?", 0, False))
        off = 4  # throttle_time_ms
        (nbrokers,) = struct.unpack_from(">i", body, off)
        off += 4
        brokers = []
        for _ in range(nbrokers):
            (node,) = struct.unpack_from(">i", body, off)
            off += 4
            bhost, off = _read_string(body, off)
            (bport,) = struct.unpack_from(">i", body, off)
            off += 4
            _rack, off = _read_string(body, off)
            brokers.append({"node_id": node, "host": bhost, "port": bport})
        cluster_id, off = _read_string(body, off)
        (controller,) = struct.unpack_from(">i", body, off)
    if not brokers:
        raise OSError("kafka: metadata lists no brokers yet")
    return {"brokers": brokers, "cluster_id": cluster_id, "controller_id": controller}


def kafka_sasl_mechanisms(host: str, port: int, timeout: float = 3.0) -> list[str]:
    """SaslHandshake v1 with PLAIN: the listener answers with the mechanisms it enables."""
    mech = b"PLAIN"
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        body = _kafka_call(sock, 17, 1, 1, struct.pack(">h", len(mech)) + mech)
    error, n = struct.unpack_from(">hi", body, 0)
    off = 6
    mechs = []
    for _ in range(n):
        m, off = _read_string(body, off)
        mechs.append(m or "")
    if error:
        raise OSError(f"kafka: SaslHandshake error {error}, enabled {mechs}")
    return mechs


def http(
    method: str,
    url: str,
    body: Any = None,
    *,
    auth: tuple[str, str] | None = None,
    timeout: float = 5.0,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    data = None
    hdrs = {"Accept": "application/json"}
    if headers:
        hdrs.update(headers)
    if body is not None:
        data = json.dumps(body).encode()
        hdrs.setdefault("Content-Type", "application/json")
    if auth:
        hdrs["Authorization"] = "Basic " + base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()
    req = urllib.request.Request(url, data=data, method=method, headers=hdrs)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            status, raw = resp.status, resp.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    try:
        return status, json.loads(raw) if raw else None
    except ValueError:
        return status, raw.decode("utf-8", "replace")


def http_ok(url: str, *, auth: tuple[str, str] | None = None, timeout: float = 3.0) -> Any:
    status, body = http("GET", url, auth=auth, timeout=timeout)
    if status != 200:
        raise OSError(f"GET {url} -> {status}: {str(body)[:200]}")
    return body


def kafka_sasl_plain_login(
    host: str, port: int, user: str, password: str, timeout: float = 3.0
) -> tuple[int, str | None]:
    """SaslHandshake v1 + SaslAuthenticate v0 with PLAIN; returns (error_code, error_message).

    0 means the credentials were accepted; 58 (SASL_AUTHENTICATION_FAILED) means refused.
    """
    mech = b"PLAIN"
    token = b"\0" + user.encode() + b"\0" + password.encode()
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        body = _kafka_call(sock, 17, 1, 1, struct.pack(">h", len(mech)) + mech)
        if struct.unpack_from(">h", body, 0)[0]:
            raise OSError("kafka: SaslHandshake refused PLAIN")
        body = _kafka_call(sock, 36, 0, 2, struct.pack(">i", len(token)) + token)
    error = struct.unpack_from(">h", body, 0)[0]
    message, _ = _read_string(body, 2)
    return error, message
