"""The Confluent-compatible Schema Registry REST API: read, check, register.

Works against Confluent Schema Registry and any registry serving its API
(e.g. Apicurio's ``/apis/ccompat/v7``). Response bodies are never shown to
users: registry error messages can echo the schema or internal URLs.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import attrs
from streamt.sdk import (
    ABSENT,
    PRESENT,
    Codes,
    Observation,
    StreamtError,
    auth_refused,
    bounded_error,
    bounded_session,
    json_or_none,
)

CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"
TIMEOUT_SECONDS = 15  # the total deadline of one request (the bounded HTTP layer of streamt.sdk)
SERVICE, SETTING = "The Schema Registry", "runtime.schema_registry.url"
# Confluent's error codes for "no such subject" and "no such version".
_SUBJECT_NOT_FOUND = 40401
_VERSION_NOT_FOUND = 40402


# Connections kept open per client: observing N subjects is N rounds of requests (the registry has
# no batch read), run at most this many at a time over reused keep-alive connections. 16 against 8: 1,000
# subjects observed in 8.9 s instead of 11.3 s (identical schemas) and 13.3 s instead of 15.3 s (a compatible
# change) against the devstack registry under load; 32 gained little more (bench/README.md, issue 20).
POOL_SIZE = 16


def _pooled_session() -> Any:
    return bounded_session(TIMEOUT_SECONDS, pool_size=POOL_SIZE, provider="schema_registry")


@attrs.frozen
class _Environment:
    """What ``requests`` takes from the environment for the registry's host (proxies and ``no_proxy``, a CA
    bundle variable, ``.netrc`` credentials), read once per client. ``requests`` reads it again for every
    request (a scan of ``os.environ`` and a ``.netrc`` lookup): a quarter of a read's client CPU, paid by
    every subject of a plan. Every request goes to the base URL's host, so one reading answers for all."""

    settings: dict[str, Any]
    netrc_auth: Any = attrs.field(repr=False)

    @classmethod
    def read(cls, session: Any, url: str) -> _Environment:
        import requests

        settings = session.merge_environment_settings(url, {}, None, None, None)
        netrc_auth = requests.utils.get_netrc_auth(url) if session.trust_env else None
        session.trust_env = False  # from here on the settings are passed with each request
        return cls({key: settings[key] for key in ("proxies", "verify", "cert")}, netrc_auth)


@attrs.frozen
class RegistryClient:
    """A thin client bound to one registry base URL and optional basic auth.

    Requests share one pooled session (keep-alive, at most ``POOL_SIZE`` connections), so the
    client may be used from up to ``POOL_SIZE`` threads at once without a handshake per request.
    """

    url: str
    username: str | None = None
    password: str | None = attrs.field(default=None, repr=False)
    _session: Any = attrs.field(factory=_pooled_session, init=False, eq=False, repr=False)
    _environment: _Environment = attrs.field(
        default=attrs.Factory(lambda self: _Environment.read(self._session, self.url), takes_self=True),
        init=False,
        eq=False,
        repr=False,
    )

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        import requests

        auth = (self.username, self.password or "") if self.username else self._environment.netrc_auth
        try:
            response = self._session.request(
                method,
                self.url.rstrip("/") + path,
                data=None if body is None else json.dumps(body),
                headers={"Content-Type": CONTENT_TYPE, "Accept": CONTENT_TYPE},
                auth=auth,
                **self._environment.settings,
            )
            payload = json_or_none(response.content)
        except requests.exceptions.SSLError:
            raise StreamtError(
                Codes.E405_SSL_ERROR,
                "The TLS handshake with the Schema Registry failed.",
                "Check runtime.schema_registry.url and its certificate.",
            ) from None
        except requests.exceptions.RequestException as exc:
            raise bounded_error(exc, SERVICE, SETTING) or StreamtError(
                Codes.E406_CONNECTION_REFUSED,
                "The Schema Registry did not answer.",
                "Check that runtime.schema_registry.url is reachable.",
            ) from None
        if auth_refused(response.status_code):
            raise StreamtError(
                Codes.E404_AUTH_FAILED,
                "The Schema Registry refused the credentials.",
                "Check runtime.schema_registry.username/password.",
            )
        return response.status_code, payload

    def latest(self, subject: str) -> dict[str, Any] | None:
        """The latest registered version of ``subject``, or ``None`` if it has none."""
        status, payload = self._request("GET", f"/subjects/{quote(subject, safe='')}/versions/latest")
        if status == 404:
            return None
        if status != 200 or not isinstance(payload, dict):
            raise self._unexpected("read subject", status)
        return payload

    def version(self, subject: str, version: Any) -> dict[str, Any] | None:
        """One registered version (``latest`` or a number) with its references; ``None`` if absent."""
        path = f"/subjects/{quote(subject, safe='')}/versions/{quote(str(version), safe='')}"
        status, payload = self._request("GET", path)
        if status == 404:
            return None
        if status != 200 or not isinstance(payload, dict):
            raise self._unexpected("read a subject version", status)
        return payload

    def schema_by_id(self, schema_id: int) -> tuple[str, str] | None:
        """``(schema type, schema text)`` of a registered schema id, or ``None`` if there is no such id."""
        status, payload = self._request("GET", f"/schemas/ids/{int(schema_id)}")
        if status == 404:
            return None
        if status != 200 or not isinstance(payload, dict) or not isinstance(payload.get("schema"), str):
            raise self._unexpected("read a schema by id", status)
        return str(payload.get("schemaType") or "AVRO").upper(), payload["schema"]

    def effective_compatibility(self, subject: str) -> str | None:
        """The level that governs ``subject`` now: its own, else the registry default (``defaultToGlobal``).

        Without ``defaultToGlobal`` a subject with no level of its own reads as ``NONE`` on some
        registries (Apicurio's ccompat API) while the global rule is still enforced.
        """
        status, payload = self._request("GET", f"/config/{quote(subject, safe='')}?defaultToGlobal=true")
        if status == 200 and isinstance(payload, dict):
            level = payload.get("compatibilityLevel") or payload.get("compatibility")
            if isinstance(level, str):
                return level.upper()
        if status == 404:
            return None
        raise self._unexpected("read the subject's compatibility", status)

    def set_compatibility(self, subject: str, level: str) -> None:
        """``PUT /config/<subject>``: the subject's own compatibility level. A refusal is ``E407``."""
        status, payload = self._request("PUT", f"/config/{quote(subject, safe='')}", {"compatibility": level})
        if status != 200 or not isinstance(payload, dict):
            raise self._unexpected("set the subject's compatibility", status)

    def is_compatible(self, subject: str, schema: str, schema_type: str) -> bool:
        """Whether ``schema`` may be registered under ``subject`` by its compatibility rule."""
        body = self._body(schema, schema_type)
        status, payload = self._request(
            "POST", f"/compatibility/subjects/{quote(subject, safe='')}/versions/latest", body
        )
        if (
            status == 404
            and isinstance(payload, dict)
            and payload.get("error_code")
            in (
                _SUBJECT_NOT_FOUND,
                _VERSION_NOT_FOUND,
            )
        ):
            return True  # nothing registered yet: any schema is compatible
        if status != 200 or not isinstance(payload, dict) or "is_compatible" not in payload:
            raise self._unexpected("check compatibility", status)
        return bool(payload["is_compatible"])

    def register(self, subject: str, schema: str, schema_type: str) -> int:
        """Register ``schema``; returns the schema id. Incompatible → ``E402``."""
        status, payload = self._request(
            "POST", f"/subjects/{quote(subject, safe='')}/versions", self._body(schema, schema_type)
        )
        if status == 409:
            raise StreamtError(
                Codes.E402_SCHEMA_INCOMPATIBLE,
                f"The Schema Registry refused an incompatible schema for subject '{subject}'.",
                "Make the change compatible, or register it under a new subject version policy.",
            )
        if status != 200 or not isinstance(payload, dict) or "id" not in payload:
            raise self._unexpected("register schema", status)
        return int(payload["id"])

    def delete_subject(self, subject: str) -> bool:
        """Soft-delete then permanently delete ``subject``; ``True`` when it is gone."""
        path = f"/subjects/{quote(subject, safe='')}"
        soft, _ = self._request("DELETE", path)
        hard, _ = self._request("DELETE", path + "?permanent=true")
        return soft in (200, 404) and hard in (200, 404)

    @staticmethod
    def _body(schema: str, schema_type: str) -> dict[str, Any]:
        body: dict[str, Any] = {"schema": schema}
        if schema_type.upper() != "AVRO":
            body["schemaType"] = schema_type.upper()
        return body

    @staticmethod
    def _unexpected(doing: str, status: int) -> StreamtError:
        return StreamtError(
            Codes.E407_DEPLOY_ERROR,
            f"The Schema Registry answered HTTP {status} when asked to {doing}.",
            "Check the registry's health; the response body is not shown.",
        )


def observe_subject(
    client: RegistryClient, subject: str, schema: str, schema_type: str, declared_level: str | None = None
) -> Observation:
    """The live subject: version, its compatibility level, and whether the compiled schema is identical or compatible.

    Compatibility is the registry's own verdict (``POST /compatibility/subjects/<s>/versions/latest``)
    under the level in force now. When the project declares another level, apply sets it before it
    registers; a declared ``NONE`` accepts anything, any other declared level is checked under the
    live one (fail closed: a change the live rule refuses stays blocked until the level is changed).
    """
    latest = client.latest(subject)
    if latest is None:
        return Observation(ABSENT)
    same = _canonical(latest.get("schema", ""), schema_type) == _canonical(schema, schema_type)
    compatible = same or declared_level == "NONE" or client.is_compatible(subject, schema, schema_type)
    return Observation(
        PRESENT,
        {
            "version": latest.get("version"),
            "id": latest.get("id"),
            "schema_type": (latest.get("schemaType") or "AVRO").upper(),
            "compatibility": client.effective_compatibility(subject),
            "identical": same,
            "compatible": compatible,
        },
    )


def _canonical(schema: str, schema_type: str) -> str:
    # Registries reformat Avro/JSON schemas (Apicurio returns compact JSON), so
    # compare parsed documents, not text.
    if schema_type.upper() in ("AVRO", "JSON"):
        try:
            return json.dumps(json.loads(schema), sort_keys=True, separators=(",", ":"))
        except ValueError:
            return schema
    return schema.strip()
