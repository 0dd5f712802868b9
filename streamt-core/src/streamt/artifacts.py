"""Artifacts: the deployable things a project compiles to.

A provider plugin returns ``Artifact`` objects from ``streamt_compile``; core
orders them, checksums them, writes them under ``generated/`` and plans them.
The checksum covers the canonical JSON bytes of ``spec`` and nothing else, so
the same declaration always yields the same checksum, across processes,
``PYTHONHASHSEED`` values and file discovery order.

The compile contract between core and providers:

* Core (``streamt.compile``) walks declarations in DAG order and calls
  ``streamt_compile(project, declaration, env)`` of the plugins that
  registered a kind the declaration produces (``streamt.artifact_kinds``), and
  adds the removal artifact of each ``lifecycle`` tombstone (compiled by the
  plugin whose ``streamt_removal_kinds`` registers its list). It refuses two
  artifacts with the same (kind, identity), sorts them by the registered
  ranks, and writes the output directory (dsl.md section 18): ``manifest.json``
  and each artifact under the directory and manifest key its kind's plugin
  registered (``topics/<topic>.json``, ``flink/<job>.sql`` and ``.json``,
  ``connect/<model>.json`` ... for streamt's plugins).
* A model whose materialization (or executor) no installed plugin declares
  through ``streamt_materializations`` fails with ``E903_PLUGIN_REQUIRED``
  naming the extra; one declared with ``implemented=False`` fails with
  ``E904_NOT_IMPLEMENTED``.
* Providers return artifacts only for declarations they own (else ``[]``),
  never write files, never contact services while compiling, import their
  compiler modules lazily inside the hook, and flip their
  ``Materialization(implemented=True)`` once the compiler works.
* Provider-specific diagnostics go through ``streamt_validate``; the pure
  "runtime block missing" checks (E201/E202/E204/E205/E207/E208) live in core
  validation (``streamt.validation``).
* The project model is ``streamt.project`` (``load_project``); see its package
  docstring for the API.
"""

from __future__ import annotations

import hashlib
import weakref
from typing import Any

import attrs

from streamt.json_fast import sorted_compact

OWNERSHIP_MODES = ("managed", "external", "adopted")


def canonical_json(value: Any) -> bytes:
    """The one canonical byte form: sorted keys, no insignificant spaces, UTF-8."""
    # json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False), encoded
    return _CANONICAL(value).encode("utf-8")


_CANONICAL = sorted_compact(",", ":")


def sha256_checksum(data: bytes) -> str:
    """``sha256:<hex>`` of ``data``: the checksum form of artifacts, plans and state documents."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


@attrs.frozen
class Artifact:
    """One deployable thing.

    * ``kind`` — ``topic``, ``schema``, ``flink_job``, ``connector``,
      ``gateway_rule``, ``kafka_streams_job`` ...: a kind its plugin registers
      (``streamt_artifact_kinds``), which decides its directory, manifest key and order.
    * ``name`` — the logical name: the declaration that owns it (model,
      source or test name). ``streamt adopt --name`` uses it.
    * ``identity`` — the physical identity at the provider: topic name,
      subject, connector name, Flink job name, alias topic ...
    * ``spec`` — canonical JSON-compatible data (dicts, lists, str, int,
      bool, None; no floats whose printing may vary). It is what gets written,
      planned and checksummed.
    * ``ownership`` — ``managed`` (create/update), ``external`` (declared
      only, never mutated) or ``adopted`` (claimed through ``streamt adopt``).
    * ``provider`` — the distribution that compiled it, for messages.
    * ``depends_on`` — ``(kind, identity)`` pairs that must exist first
      (a Flink job depends on its sink topic), used to order plan actions.
    * ``files`` — extra rendered files keyed by file suffix, e.g.
      ``{".sql": "..."}`` for a Flink job, written next to the JSON spec.
    """

    kind: str
    name: str
    identity: str
    spec: dict[str, Any]
    ownership: str = "managed"
    provider: str = "streamt-core"
    depends_on: tuple[tuple[str, str], ...] = ()
    files: dict[str, str] = attrs.field(factory=dict)

    def __attrs_post_init__(self) -> None:
        if self.ownership not in OWNERSHIP_MODES:
            raise ValueError(f"artifact {self.kind}/{self.identity}: unknown ownership {self.ownership!r}")

    @property
    def canonical_bytes(self) -> bytes:
        """``spec`` as canonical JSON bytes: what is written and checksummed."""
        return canonical_json(self.spec)

    @property
    def checksum(self) -> str:
        """``sha256:<hex>`` of ``canonical_bytes``, computed once per artifact."""
        # A full canonical encoding of ``spec``, read several times per artifact (manifest, plan actions,
        # state): computed once per artifact. ``spec`` is never changed in place once the artifact exists.
        return remember_checksum(self)

    @property
    def sort_key(self) -> tuple[str, str]:
        """``(kind, identity)``: the order artifacts are listed and written in."""
        return (self.kind, self.identity)

    def resource_id(self, project: str, env: str) -> str:
        """``streamt://<project>/<env>/<kind>/<name>``: the key of its ownership record."""
        return resource_id(project, env, self.kind, self.name)


def remember_checksum(artifact: Artifact, canonical: bytes | None = None) -> str:
    """``artifact.checksum``; ``canonical`` is ``artifact.canonical_bytes`` when a caller encoded it already."""
    cached = _CHECKSUMS.get(id(artifact))
    if cached is not None and cached() is artifact:
        return cached.checksum
    value = sha256_checksum(artifact.canonical_bytes if canonical is None else canonical)
    _CHECKSUMS[id(artifact)] = _Remembered(artifact, value)
    return value


class _Remembered(weakref.ref[Artifact]):
    """An artifact's checksum, held beside it: the artifact's fields stay what plugins see."""

    __slots__ = ("checksum", "key")
    checksum: str
    key: int

    def __new__(cls, artifact: Artifact, checksum: str) -> _Remembered:
        self = super().__new__(cls, artifact, _forget)
        self.key, self.checksum = id(artifact), checksum
        return self

    def __init__(self, artifact: Artifact, checksum: str) -> None:
        super().__init__(artifact, _forget)  # type: ignore[call-arg]  # typeshed omits ref.__init__


def _forget(ref: _Remembered) -> None:
    # Runs as the artifact is freed, before its ``id`` can be reused.
    if _CHECKSUMS.get(ref.key) is ref:
        del _CHECKSUMS[ref.key]


# ``id(artifact)`` -> its checksum; the weak reference tells a reused ``id`` apart and drops the entry.
_CHECKSUMS: dict[int, _Remembered] = {}


def resource_id(project: str, env: str, kind: str, logical_name: str) -> str:
    """``streamt://<project>/<env>/<kind>/<logical-name>`` as the seed defines it."""
    return f"streamt://{project}/{env}/{kind}/{logical_name}"
