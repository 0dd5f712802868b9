"""Live Gateway rules: the interceptor mapping, observation and planning against the admin API v2.

A rule is one aggregate per vCluster: the AliasTopic ``(vCluster, virtualTopic)`` plus the
interceptors the rule owns. Rule-owned interceptors have fixed names derived from the alias
(``<alias>--streamt-filter``, ``<alias>--streamt-mask``) in the exact scope ``{vCluster, group:
null, username: null}``; nothing else in the Gateway is ever read as, or written as, part of a
rule.

Aliases are not scoped by project (a consumer subscribes to the alias by name), so the owner marker
lives in each rule-owned interceptor's ``spec.comment``, which the Gateway stores and lists:
``managed by streamt (owner: <project>/<env>)``. When a rule exists without an ownership record, the
observer reports the marker as ``owner`` (as the Connect observer does with ``streamt.owner``) and
the plan names the project and environment that made it. An alias-only rule has no interceptor and
so no marker; an interceptor written before the marker reads as ``managed by streamt`` (no owner).

Observation is two sequential collection GETs per vCluster (``/alias-topic?vcluster=`` then
``/interceptor?vcluster=``), whatever the number of rules. They are read-only but not atomic:
concurrent Gateway writers are a TOCTOU boundary. Live resources are normalized to the fields
streamt sends (a missing alias ``vCluster`` is ``passthrough``; ``physicalCluster`` and keys the
Gateway adds are ignored), and compared as a whole; the plan binds ``sha256`` fingerprints of the
current and desired aggregates.

Mapping (``shared/spec/conduktor-gateway-api.md`` section 5):

* ``filter`` → ``io.conduktor.gateway.interceptor.VirtualSqlTopicPlugin`` with ``virtualTopic`` =
  the alias and ``statement`` = ``SELECT * FROM "<physical>" WHERE <where>``;
* ``mask`` → one ``io.conduktor.gateway.interceptor.FieldLevelDataMaskingPlugin`` on the alias
  (``topic`` = the anchored, escaped alias name) with one policy per masked field. Only
  ``redact`` has a documented Gateway rule (``MASK_ALL``). ``hash``, ``tokenize``, ``partial``
  (keeps the last four characters: ``MASK_FIRST_N`` would need the value's length) and ``null``
  have none, so such a rule is planned with the safety blocker ``gateway_unsupported_mask``:
  it can be reviewed, never applied. ``forRoles`` is not enforced per role: the policy masks the
  field for every client of the virtual cluster (stricter than declared, never weaker).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import attrs
from streamt.sdk import (
    ABSENT,
    CREATE,
    KIND_GATEWAY_RULE,
    NOOP,
    PRESENT,
    UNSET,
    UPDATE,
    Action,
    Artifact,
    Codes,
    Observation,
    SafetyBlocker,
    StreamtError,
    canonical_json,
    sha256_checksum,
    shown,
)

from streamt_gateway.client import PASSTHROUGH, GatewayClient
from streamt_gateway.config import gateway_runtime
from streamt_gateway.rule import MASK_RULES

SQL_PLUGIN = "io.conduktor.gateway.interceptor.VirtualSqlTopicPlugin"
MASK_PLUGIN = "io.conduktor.gateway.interceptor.FieldLevelDataMaskingPlugin"
FILTER_PRIORITY, MASK_PRIORITY = 100, 101
UNSUPPORTED_MASK = "gateway_unsupported_mask"
_PLAIN_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
COMMENT = "managed by streamt"
_OWNER_COMMENT = re.compile(r"^managed by streamt \(owner: (?P<project>.+)/(?P<env>[^/]+)\)$")


def owner_comment(owner: str | None) -> str:
    """An interceptor's ``spec.comment``: the owner marker ``<project>/<env>`` when it is known."""
    return COMMENT if owner is None else f"{COMMENT} (owner: {owner})"


def rule_interceptors(interceptors: list[Any], names: tuple[str, ...], vcluster: str) -> list[dict[str, Any]]:
    """The listed interceptors a rule owns: one of ``names`` in the exact scope ``{vCluster}``."""
    found = []
    for item in interceptors:
        meta = item.get("metadata") if isinstance(item, dict) else None
        if not isinstance(meta, dict) or meta.get("name") not in names:
            continue
        scope = meta.get("scope")
        scope = scope if isinstance(scope, dict) else {}
        if (scope.get("vCluster") or PASSTHROUGH) == vcluster and not scope.get("group") and not scope.get("username"):
            found.append(item)
    return found


def owner_of(owned: list[dict[str, Any]]) -> dict[str, str] | None:
    """``{project, environment}`` from the first rule-owned interceptor with an owner marker, else ``None``."""
    for item in owned:
        spec = item.get("spec")
        comment = spec.get("comment") if isinstance(spec, dict) else None
        found = _OWNER_COMMENT.match(comment) if isinstance(comment, str) else None
        if found:
            return {"project": found["project"], "environment": found["env"]}
    return None


def client_for(runtime: Any) -> GatewayClient:
    gateway = gateway_runtime(runtime)
    if gateway is None or not gateway.admin_url:
        raise StreamtError(
            Codes.E201_GATEWAY_REQUIRED,
            "Virtual topics need runtime.conduktor.gateway.admin_url.",
            "Configure the Conduktor Gateway admin API for this environment.",
        )
    return GatewayClient(gateway.admin_url, gateway.virtual_cluster or PASSTHROUGH, gateway.username, gateway.password)


def owned_names(alias: str) -> tuple[str, str]:
    """The only interceptor names a rule owns: (filter, mask)."""
    return f"{alias}--streamt-filter", f"{alias}--streamt-mask"


def unsupported_masks(spec: dict[str, Any]) -> list[str]:
    return [
        f"{i['config']['field']} ({i['config']['method']})"
        for i in spec["interceptors"]
        if i["type"] == "mask" and i["config"]["method"] not in MASK_RULES
    ]


def _quoted(name: str) -> str:
    return name if _PLAIN_IDENTIFIER.match(name) else '"' + name.replace('"', '""') + '"'


def desired_interceptors(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Interceptor name -> ``{pluginClass, priority, config}`` for the rule (supported masks only)."""
    alias = spec["virtualTopic"]
    filter_name, mask_name = owned_names(alias)
    out: dict[str, dict[str, Any]] = {}
    for item in spec["interceptors"]:
        if item["type"] == "filter":
            statement = f"SELECT * FROM {_quoted(spec['physicalTopic'])} WHERE {item['config']['where']}"
            out[filter_name] = {
                "pluginClass": SQL_PLUGIN,
                "priority": FILTER_PRIORITY,
                "config": {"virtualTopic": alias, "statement": statement},
            }
    policies = [
        {"name": f"mask {i['config']['field']}", "fields": [i["config"]["field"]], "rule": {"type": rule}}
        for i in spec["interceptors"]
        if i["type"] == "mask" and (rule := MASK_RULES.get(i["config"]["method"]))
    ]
    if policies:
        out[mask_name] = {
            "pluginClass": MASK_PLUGIN,
            "priority": MASK_PRIORITY,
            "config": {"topic": "^" + re.escape(alias) + "$", "policies": policies},
        }
    return out


def desired_aggregate(spec: dict[str, Any], vcluster: str) -> dict[str, Any]:
    return {
        "alias": {"name": spec["virtualTopic"], "physicalName": spec["physicalTopic"]},
        "interceptors": desired_interceptors(spec),
        "vCluster": vcluster,
    }


def fingerprint(aggregate: dict[str, Any]) -> str:
    return sha256_checksum(canonical_json(aggregate))


def endpoint_digest(client: GatewayClient) -> str:
    """Which Gateway and vCluster the plan was made against, without the credentials."""
    return sha256_checksum(canonical_json({"admin_url": client.url.rstrip("/"), "vCluster": client.vcluster}))


def _declared(live: Any, desired: Any) -> Any:
    """``live`` restricted to the keys streamt sends (lists element-wise), so Gateway defaults never count."""
    if isinstance(desired, dict) and isinstance(live, dict):
        return {k: _declared(live[k], v) for k, v in desired.items() if k in live}
    if isinstance(desired, list) and isinstance(live, list) and len(desired) == len(live):
        return [_declared(a, b) for a, b in zip(live, desired, strict=True)]
    return live


def _interceptor_view(item: dict[str, Any], want: dict[str, Any] | None) -> dict[str, Any]:
    spec = item.get("spec")
    spec = spec if isinstance(spec, dict) else {}
    view = {"pluginClass": spec.get("pluginClass"), "priority": spec.get("priority"), "config": spec.get("config")}
    return _declared(view, want) if want is not None else view


def live_aggregate(
    spec: dict[str, Any], vcluster: str, aliases: list[Any], interceptors: list[Any]
) -> dict[str, Any] | None:
    """The normalized live aggregate of one rule, or ``None`` when nothing of it exists."""
    name = spec["virtualTopic"]
    alias = None
    for item in aliases:
        meta = item.get("metadata") if isinstance(item, dict) else None
        if not isinstance(meta, dict) or meta.get("name") != name:
            continue
        if (meta.get("vCluster") or PASSTHROUGH) != vcluster:
            continue
        physical = (item.get("spec") or {}).get("physicalName") if isinstance(item.get("spec"), dict) else None
        alias = {"name": name, "physicalName": physical}
    wanted = desired_interceptors(spec)
    owned: dict[str, dict[str, Any]] = {}
    for item in rule_interceptors(interceptors, owned_names(name), vcluster):
        owned[item["metadata"]["name"]] = _interceptor_view(item, wanted.get(item["metadata"]["name"]))
    if alias is None and not owned:
        return None
    return {"alias": alias, "interceptors": owned, "vCluster": vcluster}


@attrs.define
class GatewayRuleObserver:
    runtime: Any
    requests: int = 0
    kinds = (KIND_GATEWAY_RULE,)
    # adopt: the alias facts of the last adoption read of each rule, shown by adoption_review
    reviewed: dict[str, dict[str, Any]] = attrs.field(factory=dict)

    def observe(self, artifacts: Sequence[Artifact]) -> dict[str, Observation]:
        if not artifacts:
            return {}
        client = client_for(self.runtime)
        aliases, interceptors = self.read(client)
        observed: dict[str, Observation] = {}
        for artifact in artifacts:
            live = live_aggregate(artifact.spec, client.vcluster, aliases, interceptors)
            if live is None:
                observed[artifact.identity] = Observation(ABSENT, {"vCluster": client.vcluster})
            else:
                view = {"aggregate": live, "fingerprint": fingerprint(live), "vCluster": client.vcluster}
                owner = owner_of(
                    rule_interceptors(interceptors, owned_names(artifact.spec["virtualTopic"]), client.vcluster)
                )
                observed[artifact.identity] = Observation(PRESENT, {**view, "owner": owner} if owner else view)
        return observed

    def adoption_observe(self, artifact: Artifact) -> Observation:
        """The same two ordered collection GETs; only an alias-only rule (no interceptor) can be adopted."""
        if artifact.spec.get("interceptors"):
            raise StreamtError(
                Codes.E412_ADOPTION_TARGET_INVALID,
                f"Gateway rule '{artifact.name}' declares interceptors; only alias-only rules can be adopted.",
                "Adopt the rule without a WHERE filter or masks, then add them through a reviewed plan.",
            )
        observation = self.observe([artifact])[artifact.identity]
        aggregate = (observation.spec or {}).get("aggregate") or {}
        if observation.status == PRESENT and aggregate.get("interceptors"):
            raise StreamtError(
                Codes.E412_ADOPTION_TARGET_INVALID,
                f"Live Gateway rule '{artifact.name}' has interceptors streamt would own; only alias-only rules "
                "can be adopted.",
                "Remove those interceptors by hand, or declare them and let a reviewed plan manage them later.",
            )
        if observation.status == PRESENT and aggregate.get("alias") is None:
            return Observation(ABSENT, {"vCluster": (observation.spec or {}).get("vCluster")})
        if observation.status == PRESENT:
            # What the reference lets the review show: no physical topic, endpoint, credential or
            # interceptor configuration, only the alias and fingerprints of what is bound and seen.
            self.reviewed[artifact.identity] = {
                "alias": aggregate["alias"]["name"],
                "binding_fingerprint": endpoint_digest(client_for(self.runtime)),
                "mapping_fingerprint": fingerprint(aggregate["alias"]),
                "aggregate_fingerprint": fingerprint(aggregate),
                "artifact_checksum": artifact.checksum,
            }
        return observation

    def adoption_review(self, artifact: Artifact) -> dict[str, Any]:
        """Facts of the alias read by ``adoption_observe`` (no further request)."""
        return dict(self.reviewed[artifact.identity])

    def read(self, client: GatewayClient) -> tuple[list[Any], list[Any]]:
        """The two sequential collection GETs of the vCluster (not atomic together)."""
        self.requests += 2
        return client.read("/alias-topic", "list alias topics"), client.read("/interceptor", "list interceptors")


def changes(desired: dict[str, Any], live: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    if live.get("alias") != desired["alias"]:
        have = (live.get("alias") or {}).get("physicalName")
        found["alias.physicalName"] = {"from": have, "to": desired["alias"]["physicalName"]}
    have_i, want_i = live.get("interceptors") or {}, desired["interceptors"]
    for name in sorted(set(have_i) | set(want_i)):
        if have_i.get(name) != want_i.get(name):
            verb = "create" if name not in have_i else "delete" if name not in want_i else "update"
            found[f"interceptors.{name}"] = verb
    return found


def _summary(spec: dict[str, Any]) -> str:
    kinds = [i["type"] for i in spec["interceptors"]]
    parts = [f"alias of {spec['physicalTopic']}"]
    if "filter" in kinds:
        parts.append("filter")
    if kinds.count("mask"):
        parts.append(f"{kinds.count('mask')} mask(s)")
    return ", ".join(parts)


class GatewayRulePlanner:
    """Absent → create; equal aggregate → noop; otherwise update. Unsupported masks block apply."""

    kinds = (KIND_GATEWAY_RULE,)

    def plan(self, artifact: Artifact, observation: Observation, record: Any = None) -> list[Any]:
        spec = artifact.spec
        vcluster = (observation.spec or {}).get("vCluster") or PASSTHROUGH
        desired = desired_aggregate(spec, vcluster)
        evidence = {"desired_fingerprint": fingerprint(desired), "owned_interceptors": len(desired["interceptors"])}
        items: list[Any] = []
        if observation.status == ABSENT:
            items.append(Action.for_artifact(CREATE, artifact, _summary(spec), observation, **evidence))
        elif observation.status == PRESENT:
            live = (observation.spec or {}).get("aggregate") or {}
            found = changes(desired, live)
            if not found:
                return [Action.for_artifact(NOOP, artifact, "no changes", observation, **evidence)]
            summary = ", ".join(
                f"{k}: {v}" if isinstance(v, str) else f"{k}: {shown(v['from'], UNSET)} → {shown(v['to'], UNSET)}"
                for k, v in found.items()
            )
            items.append(Action.for_artifact(UPDATE, artifact, summary, observation, changes=found, **evidence))
        else:
            raise ValueError(f"cannot plan gateway rule {artifact.identity} from a {observation.status} observation")
        bad = unsupported_masks(spec)
        if bad:
            message = (
                f"Gateway rule '{artifact.identity}' masks {', '.join(bad)} with a method that has no Gateway "
                "masking rule (only redact maps to MASK_ALL); it can be reviewed but not applied."
            )
            fix = "use method: redact, or materialize the model as flink to mask it in SQL"
            items.append(SafetyBlocker(UNSUPPORTED_MASK, artifact.kind, artifact.identity, message, fix))
        return items
