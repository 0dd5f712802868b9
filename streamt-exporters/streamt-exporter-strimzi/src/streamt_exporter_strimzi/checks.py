"""The KafkaTopic CRD's rules and Kubernetes' name rules, checked before anything is written.

These restate the published constraints (CRD ``v1`` schema: ``partitions`` an
integer >= 1, ``replicas`` 1..32767, ``config`` an object, ``topicName`` a
string, no other spec field; Kubernetes: namespaced names are DNS-1123
labels, label values at most 63 characters of ``[A-Za-z0-9._-]`` starting and
ending alphanumeric). Every problem is returned, not just the first.
"""

from __future__ import annotations

import re
from typing import Any

from streamt_exporter_strimzi.mapping import API_VERSION, CLUSTER_LABEL, KIND, is_kubernetes_name

_LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
_SPEC_FIELDS = {"topicName", "partitions", "replicas", "config"}
REPLICAS_MAX = 32767


def option_problems(namespace: str, cluster: str) -> list[str]:
    problems = []
    if not is_kubernetes_name(namespace):
        problems.append(f"--namespace {namespace!r} is not a valid Kubernetes namespace (DNS-1123 label)")
    if not cluster or len(cluster) > 63 or not _LABEL_VALUE.match(cluster):
        problems.append(f"--cluster-name {cluster!r} is not a valid Kubernetes label value")
    return problems


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def document_problems(document: dict[str, Any]) -> list[str]:
    name = document.get("metadata", {}).get("name", "?")
    where = f"KafkaTopic {name!r}"
    problems = []
    if document.get("apiVersion") != API_VERSION or document.get("kind") != KIND:
        problems.append(f"{where}: not a {API_VERSION} {KIND}")
    metadata = document.get("metadata", {})
    if not is_kubernetes_name(str(metadata.get("name", ""))):
        problems.append(f"{where}: metadata.name is not a valid Kubernetes name")
    if CLUSTER_LABEL not in metadata.get("labels", {}):
        problems.append(f"{where}: the {CLUSTER_LABEL} label is missing")
    spec = document.get("spec", {})
    for extra in sorted(set(spec) - _SPEC_FIELDS):
        problems.append(f"{where}: spec.{extra} is not a KafkaTopic field")
    if "partitions" in spec and not (_is_int(spec["partitions"]) and spec["partitions"] >= 1):
        problems.append(f"{where}: spec.partitions must be an integer >= 1")
    if "replicas" in spec and not (_is_int(spec["replicas"]) and 1 <= spec["replicas"] <= REPLICAS_MAX):
        problems.append(f"{where}: spec.replicas must be an integer from 1 to {REPLICAS_MAX}")
    if "config" in spec and not isinstance(spec["config"], dict):
        problems.append(f"{where}: spec.config must be a map")
    if "topicName" in spec and not (isinstance(spec["topicName"], str) and spec["topicName"]):
        problems.append(f"{where}: spec.topicName must be a non-empty string")
    return problems
