"""In-memory Conduktor Gateway admin API v2 stub (HTTP, stdlib only).

Identity rules, defaults and status codes follow shared/spec/conduktor-gateway-api.md (sections
cited as §n).  Where the real behaviour is only inferred, the stub is lenient; where a client
could send a subtly wrong shape (a misspelt key, a missing envelope field), it answers 400 so the
client bug surfaces in tests.
"""

from __future__ import annotations

import base64
import copy
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

STUB_VERSION = "3.15.0"  # the Gateway release whose behaviour the facts mostly describe
API_VERSION = "gateway/v2"
PASSTHROUGH = "passthrough"
DEFAULT_USERS = [{"username": "admin", "password": "conduktor", "admin": True}]

VCLUSTER_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")
TOPIC_NAME = re.compile(r"^[a-zA-Z0-9._-]+$")

# §5: the plugin classes streamt may deploy; anything else is refused (a typo in a class name is
# the classic silent failure against the real Gateway).
PLUGINS = {
    "io.conduktor.gateway.interceptor.VirtualSqlTopicPlugin",
    "io.conduktor.gateway.interceptor.FieldLevelDataMaskingPlugin",
    "io.conduktor.gateway.interceptor.EncryptPlugin",
    "io.conduktor.gateway.interceptor.EncryptSchemaBasedPlugin",
    "io.conduktor.gateway.interceptor.FetchEncryptPlugin",
    "io.conduktor.gateway.interceptor.DecryptPlugin",
    "io.conduktor.gateway.interceptor.safeguard.ReadOnlyTopicPolicyPlugin",
    "io.conduktor.gateway.interceptor.safeguard.CreateTopicPolicyPlugin",
}
MASKING_RULES = {"MASK_ALL", "MASK_FIRST_N", "MASK_LAST_N"}


class ApiError(Exception):
    def __init__(self, status: int, title: str, msg: str | None = None):
        super().__init__(title)
        self.status, self.title, self.msg = status, title, msg

    def body(self) -> dict[str, Any]:
        b = {"title": self.title}
        if self.msg:
            b["msg"] = self.msg
        return b


def parse_users(raw: str) -> list[dict[str, Any]]:
    users = json.loads(raw)
    if not isinstance(users, list) or not all(isinstance(u, dict) and "username" in u for u in users):
        raise ValueError("users must be a JSON list of {username, password, admin}")
    return users


# -- validation helpers ----------------------------------------------------------------------------


def _bad(msg: str) -> ApiError:
    return ApiError(400, "Invalid request", msg)


def _obj(value: Any, where: str) -> dict:
    if not isinstance(value, dict):
        raise _bad(f"{where} must be an object")
    return value


def _only_keys(value: dict, allowed: set[str], where: str) -> None:
    extra = sorted(set(value) - allowed)
    if extra:
        raise _bad(f"{where}: unknown field(s) {extra}; allowed {sorted(allowed)}")


def _str(value: Any, where: str, *, pattern: re.Pattern | None = None, required: bool = True) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise _bad(f"{where} must be a non-empty string")
    if pattern and not pattern.match(value):
        raise _bad(f"{where} '{value}' does not match {pattern.pattern}")
    return value


def _envelope(body: Any, kinds: set[str]) -> tuple[dict, dict]:
    body = _obj(body, "body")
    for key in ("kind", "apiVersion", "metadata", "spec"):
        if key not in body:
            raise _bad(f"missing required field '{key}'")
    _only_keys(body, {"kind", "apiVersion", "metadata", "spec"}, "resource")
    # The real server seems not to check `kind` strictly (terraform sends "GatewayInterceptor"),
    # so any non-empty string passes; apiVersion is checked.
    _str(body["kind"], "kind")
    if body["apiVersion"] != API_VERSION:
        raise _bad(f"apiVersion must be '{API_VERSION}', got {body['apiVersion']!r}")
    return _obj(body["metadata"], "metadata"), _obj(body["spec"], "spec")


def _bool_param(q: dict[str, list[str]], name: str) -> bool | None:
    if name not in q:
        return None
    v = q[name][-1].lower()
    if v not in ("true", "false"):
        raise _bad(f"query parameter {name} must be true or false")
    return v == "true"


def _upsert_result(old: dict | None, new: dict) -> str:
    if old is None:
        return "Created"
    return "NotChanged" if old == new else "Updated"


# -- the state -------------------------------------------------------------------------------------


class GatewayStub:
    """All resources, in memory.  Thread-safe; one lock is plenty for a test server."""

    def __init__(self, users: list[dict[str, Any]] | None = None, bootstrap: str = "localhost:6969"):
        self.users = users or DEFAULT_USERS
        self.bootstrap = bootstrap
        self.lock = threading.Lock()
        self.vclusters: dict[str, dict] = {}
        self.aliases: dict[tuple[str, str], dict] = {}
        self.interceptors: dict[tuple[str, str | None, str | None, str | None], dict] = {}

    # auth -----------------------------------------------------------------------------------------
    def authenticate(self, header: str | None) -> dict:
        if header and header.startswith("Basic "):
            try:
                user, _, pw = base64.b64decode(header[6:]).decode().partition(":")
            except (ValueError, UnicodeDecodeError):
                user, pw = "", None
            for u in self.users:
                if u.get("username") == user and u.get("password") == pw:
                    return u
        raise ApiError(401, "The given credentials are not valid")

    def _vcluster_exists(self, name: str | None) -> None:
        if name is not None and name != PASSTHROUGH and name not in self.vclusters:
            raise ApiError(404, "Virtual cluster not found", f"The virtual cluster '{name}' does not exist")

    # virtual clusters (§6) ------------------------------------------------------------------------
    def _vc_view(self, stored: dict) -> dict:
        out = copy.deepcopy(stored)
        out["spec"]["bootstrapServers"] = self.bootstrap
        out["spec"]["clientProperties"] = {"bootstrap.servers": self.bootstrap}
        return out

    def list_vclusters(self) -> list[dict]:
        with self.lock:
            return [self._vc_view(v) for _, v in sorted(self.vclusters.items())]

    def get_vcluster(self, name: str) -> dict:
        with self.lock:
            if name not in self.vclusters:
                raise ApiError(404, "Virtual cluster not found", f"The virtual cluster '{name}' does not exist")
            return self._vc_view(self.vclusters[name])

    def put_vcluster(self, body: Any, dry: bool) -> tuple[dict, str]:
        meta, spec = _envelope(body, {"VirtualCluster"})
        _only_keys(meta, {"name"}, "metadata")
        name = _str(meta.get("name"), "metadata.name", pattern=VCLUSTER_NAME)
        if name == PASSTHROUGH:
            raise _bad("'passthrough' is a reserved virtual cluster name")
        # bootstrapServers/clientProperties are computed, but a GET result may be PUT back.
        _only_keys(
            spec, {"aclEnabled", "superUsers", "type", "aclMode", "bootstrapServers", "clientProperties"}, "spec"
        )
        acl = spec.get("aclEnabled", False)
        if not isinstance(acl, bool):
            raise _bad("spec.aclEnabled must be a boolean")
        supers = spec.get("superUsers", [])
        if not isinstance(supers, list) or not all(isinstance(s, str) for s in supers):
            raise _bad("spec.superUsers must be a list of strings")
        vtype = spec.get("type", "Standard")
        if vtype not in ("Standard", "Partner"):
            raise _bad("spec.type must be Standard or Partner")
        stored = {
            "kind": "VirtualCluster",
            "apiVersion": API_VERSION,
            "metadata": {"name": name},
            "spec": {"aclEnabled": acl, "superUsers": supers, "type": vtype},
        }
        if "aclMode" in spec:
            stored["spec"]["aclMode"] = _str(spec["aclMode"], "spec.aclMode")
        with self.lock:
            old = self.vclusters.get(name)
            if old and old["spec"]["type"] != vtype:
                raise ApiError(409, "Conflict", "the type of a virtual cluster cannot be changed")
            result = _upsert_result(old, stored)
            if not dry:
                self.vclusters[name] = stored
            return self._vc_view(stored), result

    def delete_vcluster(self, name: str) -> None:
        with self.lock:
            if name == PASSTHROUGH:
                raise _bad("the 'passthrough' virtual cluster cannot be deleted")
            if name not in self.vclusters:
                raise ApiError(404, "Virtual cluster not found", f"The virtual cluster '{name}' does not exist")
            used = [a for (vc, a) in self.aliases if vc == name]
            used += [k[0] for k in self.interceptors if k[1] == name]
            if used:
                raise ApiError(409, "Conflict", f"virtual cluster '{name}' is still referenced by {sorted(used)}")
            del self.vclusters[name]

    # alias topics (§3) ----------------------------------------------------------------------------
    def list_aliases(self, q: dict[str, list[str]]) -> list[dict]:
        _bool_param(q, "showDefaults")
        vc = q.get("vcluster", [None])[-1]
        name = q.get("name", [None])[-1]
        with self.lock:
            self._vcluster_exists(vc)
            return [
                copy.deepcopy(v)
                for (kvc, kname), v in sorted(self.aliases.items())
                if (vc is None or kvc == vc) and (name is None or kname == name)
            ]

    def put_alias(self, body: Any, dry: bool) -> tuple[dict, str]:
        meta, spec = _envelope(body, {"AliasTopic"})
        _only_keys(meta, {"name", "vCluster"}, "metadata")
        _only_keys(spec, {"physicalName", "physicalCluster"}, "spec")
        name = _str(meta.get("name"), "metadata.name", pattern=TOPIC_NAME)
        vc = _str(meta.get("vCluster"), "metadata.vCluster", pattern=VCLUSTER_NAME, required=False) or PASSTHROUGH
        physical = _str(spec.get("physicalName"), "spec.physicalName", pattern=TOPIC_NAME)
        cluster = _str(spec.get("physicalCluster"), "spec.physicalCluster", required=False) or "main"
        stored = {
            "kind": "AliasTopic",
            "apiVersion": API_VERSION,
            "metadata": {"name": name, "vCluster": vc},
            "spec": {"physicalName": physical, "physicalCluster": cluster},
        }
        with self.lock:
            self._vcluster_exists(vc)
            if (vc, physical) in self.aliases:
                raise _bad("an alias topic cannot point to another alias topic")
            old = self.aliases.get((vc, name))
            if old and old["spec"]["physicalCluster"] != cluster:
                raise ApiError(409, "Conflict", "The physical cluster of an alias topic cannot be changed")
            result = _upsert_result(old, stored)
            if not dry:
                self.aliases[(vc, name)] = stored
            return copy.deepcopy(stored), result

    def delete_alias(self, body: Any) -> None:
        if body is None:
            raise _bad("DELETE /alias-topic needs a JSON body {name, vCluster}")
        body = _obj(body, "body")
        _only_keys(body, {"name", "vCluster"}, "body")
        name = _str(body.get("name"), "name")
        vc = _str(body.get("vCluster"), "vCluster", required=False) or PASSTHROUGH
        with self.lock:
            if (vc, name) not in self.aliases:
                raise ApiError(404, "Not found", "The given name does not exist in the given virtual cluster")
            del self.aliases[(vc, name)]

    # interceptors (§4, §5) ------------------------------------------------------------------------
    @staticmethod
    def _scope(raw: Any, where: str) -> dict[str, str | None]:
        if raw is None:
            return {"vCluster": PASSTHROUGH, "group": None, "username": None}
        raw = _obj(raw, where)
        _only_keys(raw, {"vCluster", "group", "username"}, where)
        scope = {}
        for k in ("group", "username"):
            scope[k] = _str(raw.get(k), f"{where}.{k}", required=False)
        # Missing vCluster = passthrough; explicit null = global including virtual clusters.
        if "vCluster" not in raw:
            scope["vCluster"] = PASSTHROUGH
        else:
            scope["vCluster"] = _str(raw["vCluster"], f"{where}.vCluster", pattern=VCLUSTER_NAME, required=False)
        return {"vCluster": scope["vCluster"], "group": scope["group"], "username": scope["username"]}

    @staticmethod
    def _check_config(plugin: str, config: dict) -> None:
        if plugin.endswith(".VirtualSqlTopicPlugin"):
            for k in ("virtualTopic", "statement"):
                _str(config.get(k), f"spec.config.{k}")
        elif plugin.endswith(".FieldLevelDataMaskingPlugin"):
            policies = config.get("policies")
            if not isinstance(policies, list) or not policies:
                raise _bad("spec.config.policies must be a non-empty list")
            for i, pol in enumerate(policies):
                where = f"spec.config.policies[{i}]"
                pol = _obj(pol, where)
                _str(pol.get("name"), f"{where}.name")
                fields = pol.get("fields")
                if not isinstance(fields, list) or not fields or not all(isinstance(f, str) for f in fields):
                    raise _bad(f"{where}.fields must be a non-empty list of strings")
                rule = _obj(pol.get("rule"), f"{where}.rule")
                _only_keys(rule, {"type", "maskingChar", "numberOfChars"}, f"{where}.rule")
                if rule.get("type") not in MASKING_RULES:
                    raise _bad(f"{where}.rule.type must be one of {sorted(MASKING_RULES)}")
                if rule["type"] != "MASK_ALL" and not isinstance(rule.get("numberOfChars"), int):
                    raise _bad(f"{where}.rule.numberOfChars is required for {rule['type']}")
            if config.get("errorPolicy", "fail_fetch") not in ("fail_fetch", "skip_masking"):
                raise _bad("spec.config.errorPolicy must be fail_fetch or skip_masking")
        elif plugin.endswith(".ReadOnlyTopicPolicyPlugin"):
            _str(config.get("topic"), "spec.config.topic")
            if config.get("action", "BLOCK") not in ("BLOCK", "INFO"):
                raise _bad("spec.config.action must be BLOCK or INFO")

    def list_interceptors(self, q: dict[str, list[str]]) -> list[dict]:
        name = q.get("name", [None])[-1]
        vc = q.get("vcluster", [None])[-1]
        group = q.get("group", [None])[-1]
        user = q.get("username", [None])[-1]
        glob = _bool_param(q, "global")
        with self.lock:
            self._vcluster_exists(vc)
            out = []
            for (kname, kvc, kgroup, kuser), v in sorted(self.interceptors.items(), key=lambda kv: str(kv[0])):
                if name is not None and kname != name:
                    continue
                if vc is not None and kvc != vc:
                    continue
                if group is not None and kgroup != group:
                    continue
                if user is not None and kuser != user:
                    continue
                if glob is True and (kgroup is not None or kuser is not None):
                    continue
                out.append(copy.deepcopy(v))
            return out

    def put_interceptor(self, body: Any, dry: bool) -> tuple[dict, str]:
        meta, spec = _envelope(body, {"Interceptor", "GatewayInterceptor"})
        _only_keys(meta, {"name", "scope"}, "metadata")
        _only_keys(spec, {"comment", "pluginClass", "priority", "config"}, "spec")
        name = _str(meta.get("name"), "metadata.name")
        scope = self._scope(meta.get("scope"), "metadata.scope")
        plugin = _str(spec.get("pluginClass"), "spec.pluginClass")
        if plugin not in PLUGINS:
            raise _bad(f"unknown pluginClass '{plugin}' (stub knows {sorted(PLUGINS)})")
        priority = spec.get("priority")
        if not isinstance(priority, int) or isinstance(priority, bool) or not -(2**31) <= priority < 2**31:
            raise _bad("spec.priority is required and must be a 32-bit integer")
        if "config" not in spec:
            raise _bad("spec.config is required")
        config = _obj(spec["config"], "spec.config")
        self._check_config(plugin, config)
        stored_spec: dict[str, Any] = {"pluginClass": plugin, "priority": priority, "config": config}
        if spec.get("comment") is not None:
            stored_spec["comment"] = _str(spec["comment"], "spec.comment")
        stored = {
            "kind": "Interceptor",
            "apiVersion": API_VERSION,
            "metadata": {"name": name, "scope": scope},
            "spec": stored_spec,
        }
        key = (name, scope["vCluster"], scope["group"], scope["username"])
        with self.lock:
            self._vcluster_exists(scope["vCluster"])
            old = self.interceptors.get(key)
            result = _upsert_result(old, stored)
            if not dry:
                self.interceptors[key] = copy.deepcopy(stored)
            return copy.deepcopy(stored), result

    def delete_interceptor(self, name: str, body: Any) -> None:
        # Since Gateway 3.11 a missing body means the default (passthrough) scope.
        scope = self._scope(body, "body") if body not in (None, {}) else self._scope(None, "body")
        key = (name, scope["vCluster"], scope["group"], scope["username"])
        with self.lock:
            if key not in self.interceptors:
                raise ApiError(404, "Not found", "The given interceptor does not exist")
            del self.interceptors[key]

    def reset(self) -> None:
        with self.lock:
            self.vclusters.clear()
            self.aliases.clear()
            self.interceptors.clear()


# -- HTTP ------------------------------------------------------------------------------------------

_NO_BODY = object()


class Handler(BaseHTTPRequestHandler):
    server_version = "conduktor-gateway-stub"
    protocol_version = "HTTP/1.1"
    stub: GatewayStub  # set on the subclass made by make_server

    def log_message(self, fmt: str, *args: Any) -> None:  # one line per request, to the log file
        print(f"{self.address_string()} {fmt % args}", flush=True)

    def _send(self, status: int, body: Any = _NO_BODY, content_type: str = "application/json") -> None:
        data = b""
        if body is not _NO_BODY:
            data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(status)
        if data:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if data and self.command != "HEAD":
            self.wfile.write(data)

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw.strip():
            return None
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ctype != "application/json":
            raise ApiError(415, "Unsupported Media Type", "send the body as application/json")
        try:
            return json.loads(raw)
        except ValueError:
            raise ApiError(400, "Invalid value for: body") from None

    def _handle(self) -> None:
        try:
            url = urlsplit(self.path)
            q = parse_qs(url.query, keep_blank_values=True)
            parts = [unquote(p) for p in url.path.split("/") if p]
            body = self._body() if self.command in ("PUT", "POST", "DELETE") else None
            status, out = self._route(parts, q, body)
            self._send(status, out)
        except ApiError as e:
            if e.title == "Invalid value for: body":
                self._send(400, "Invalid value for: body", "text/plain")
            else:
                self._send(e.status, e.body())
        except Exception as e:
            self._send(500, {"title": "Internal error in the gateway stub", "msg": repr(e)})

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = do_PATCH = _handle

    def _route(self, parts: list[str], q: dict, body: Any) -> tuple[int, Any]:
        m = self.command
        if parts == ["health"] and m == "GET":
            return 200, {
                "status": "UP",
                "outcome": "UP",
                "checks": [
                    {"id": "buildInfo", "status": "UP", "data": {"version": STUB_VERSION, "stub": "streamt"}},
                    {"id": "live", "status": "UP"},
                ],
            }
        if parts[:1] == ["metrics"]:
            self.stub.authenticate(self.headers.get("Authorization"))
            return 200, "# conduktor gateway stub: no metrics\n"
        if parts[:2] != ["gateway", "v2"]:
            raise ApiError(404, "Not found", f"no such endpoint: {'/'.join(parts)} (v1 admin API is not served)")
        user = self.stub.authenticate(self.headers.get("Authorization"))
        if m not in ("GET", "HEAD") and not user.get("admin"):
            raise ApiError(403, "Forbidden", "this user has no admin API write permission")
        kind, rest = (parts[2] if len(parts) > 2 else ""), parts[3:]
        dry = _bool_param(q, "dryMode") or False
        s = self.stub
        if kind == "docs" and m == "GET":
            return 200, {
                "openapi": "3.1.0",
                "info": {"title": "Conduktor Gateway admin API v2 (streamt stub)", "version": STUB_VERSION},
            }
        if kind == "virtual-cluster":
            if m == "GET" and not rest:
                return 200, s.list_vclusters()
            if m == "GET" and len(rest) == 1:
                return 200, s.get_vcluster(rest[0])
            if m == "PUT" and not rest:
                res, r = s.put_vcluster(body, dry)
                return 200, {"resource": res, "upsertResult": r}
            if m == "DELETE" and len(rest) == 1:
                s.delete_vcluster(rest[0])
                return 204, _NO_BODY
        elif kind == "alias-topic":
            if m == "GET" and not rest:
                return 200, s.list_aliases(q)
            if m == "PUT" and not rest:
                res, r = s.put_alias(body, dry)
                return 200, {"resource": res, "upsertResult": r}
            if m == "DELETE" and not rest:
                s.delete_alias(body)
                return 204, _NO_BODY
        elif kind == "interceptor":
            if m == "GET" and not rest:
                return 200, s.list_interceptors(q)
            if m == "PUT" and not rest:
                res, r = s.put_interceptor(body, dry)
                return 200, {"resource": res, "upsertResult": r}
            if m == "DELETE" and len(rest) == 1:
                s.delete_interceptor(rest[0], body)
                return 204, _NO_BODY
        elif kind == "plugin" and m == "GET" and not rest:
            return 200, [{"plugin": p, "pluginId": p.rsplit(".", 1)[-1], "readme": ""} for p in sorted(PLUGINS)]
        raise ApiError(
            404 if m in ("GET", "HEAD") else 405,
            "Not found",
            f"{m} /{'/'.join(parts)} is not served by the gateway stub",
        )


def make_server(
    host: str = "127.0.0.1", port: int = 0, *, users: list[dict] | None = None, stub: GatewayStub | None = None
) -> ThreadingHTTPServer:
    state = stub or GatewayStub(users)
    handler = type("BoundHandler", (Handler,), {"stub": state})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    server.stub = state  # type: ignore[attr-defined]
    return server


def serve_in_thread(host: str = "127.0.0.1", port: int = 0, **kw: Any) -> tuple[ThreadingHTTPServer, str]:
    """Start a stub in a daemon thread (for unit tests); stop it with ``server.shutdown()``."""
    server = make_server(host, port, **kw)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()
    return server, f"http://{host}:{server.server_address[1]}"
