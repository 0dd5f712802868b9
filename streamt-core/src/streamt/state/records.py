"""Ownership state and operation control: the documents a state backend keeps.

Both documents carry a ``checksum`` over their canonical JSON (without the
checksum field), so that a truncated, hand-edited or foreign file is detected
and refused with ``E411_STATE_INVALID`` instead of being trusted.
"""

from __future__ import annotations

import itertools
from typing import Any

import attrs

from streamt.artifacts import canonical_json, sha256_checksum
from streamt.errors import Codes, StreamtError

STATE_FORMAT = "streamt.ownership-state"
STATE_VERSION = 1
CONTROL_FORMAT = "streamt.operation-control"
CONTROL_VERSION = 2

CLEAR = "clear"
IN_PROGRESS = "in_progress"
RECOVERY_REQUIRED = "recovery_required"
CONTROL_STATUSES = (CLEAR, IN_PROGRESS, RECOVERY_REQUIRED)


def state_address(namespace: str, project: str, env: str) -> str:
    """``streamt-state://<namespace>/<project>/<environment>``."""
    for part, label in ((namespace, "namespace"), (project, "project"), (env, "environment")):
        if not part or "/" in part:
            raise StreamtError(
                Codes.E411_STATE_INVALID,
                f"The state {label} must be a non-empty name without '/'.",
                "Fix deployment_state.namespace or the project name.",
            )
    return f"streamt-state://{namespace}/{project}/{env}"


def _checksum_of(document: dict[str, Any]) -> str:
    body = {k: v for k, v in document.items() if k != "checksum"}
    return sha256_checksum(canonical_json(body))


def _json_copy(value: Any) -> Any:
    """``value`` copied as ``attrs.asdict`` copies a field's value: new dicts and collections of the same
    types, attrs instances as dicts."""
    if isinstance(value, dict):
        return {key: _json_copy(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return type(value)(_json_copy(item) for item in value)
    if attrs.has(type(value)):
        return attrs.asdict(value)
    return value


_DOCUMENT_KEYS = frozenset(("format", "version", "store_id", "address", "serial", "resources", "checksum"))


def _encodes_back(document: dict[str, Any]) -> bool:
    """A cheap test that the state just built from ``document`` encodes back to exactly its body, true for
    the documents streamt writes: no other keys, text fields as text, records in ``resource_id`` (text)
    order, ``attributes`` left out when empty (the records' own fields were checked by building them).
    Re-encoding 10,000 records to compare took ~0.1 s a read; ``False`` leaves it to that comparison."""
    if document.keys() != _DOCUMENT_KEYS:
        return False
    if type(document["store_id"]) is not str or type(document["address"]) is not str:
        return False
    resources = document["resources"]
    if type(resources) is not list:
        return False
    ids = []
    for resource in resources:
        if type(resource) is not dict or ("attributes" in resource and not resource["attributes"]):
            return False
        ids.append(resource["resource_id"])
    return all(type(i) is str for i in ids) and all(a <= b for a, b in itertools.pairwise(ids))


def _invalid(what: str) -> StreamtError:
    return StreamtError(
        Codes.E411_STATE_INVALID,
        f"The {what} is malformed or was modified outside streamt.",
        "Do not hand-edit state metadata; inspect it with `streamt state status` and restore it from a backup.",
    )


@attrs.frozen
class OwnershipRecord:
    """One resource streamt manages or has adopted.

    * ``resource_id`` — ``streamt://<project>/<env>/<kind>/<logical-name>``.
    * ``kind``, ``name``, ``identity`` — as on the artifact.
    * ``ownership`` — ``managed`` or ``adopted``.
    * ``artifact_checksum`` — the checksum of the artifact last applied.
    * ``provider`` — the distribution that compiled it.
    * ``attributes`` — secret-neutral provider facts the next plan needs (a
      Flink job id); left out of the document when empty.
    """

    resource_id: str
    kind: str
    name: str
    identity: str
    ownership: str
    artifact_checksum: str
    provider: str
    # Provider facts the next plan needs and live state cannot tell (a Flink job's running
    # pipeline.name, job id, savepoint): secret-neutral, set by planners and deployers. Left out of
    # the document when empty, so records without any keep their bytes and checksums.
    attributes: dict[str, Any] = attrs.field(factory=dict, hash=False)

    def to_json(self) -> dict[str, Any]:
        """The record as JSON data."""
        # Built field by field: ``attrs.asdict`` took ~20 µs a record, paid for every record each time a
        # state is encoded. ``attributes`` is copied as deeply as ``asdict`` copied it.
        body: dict[str, Any] = {
            "resource_id": self.resource_id,
            "kind": self.kind,
            "name": self.name,
            "identity": self.identity,
            "ownership": self.ownership,
            "artifact_checksum": self.artifact_checksum,
            "provider": self.provider,
        }
        if self.attributes:
            body["attributes"] = _json_copy(self.attributes)
        return body


@attrs.frozen
class OwnershipState:
    """What streamt owns at one state address.

    * ``store_id`` — a random id fixed when the state is first created.
    * ``address`` — ``streamt-state://<namespace>/<project>/<env>``.
    * ``serial`` — advances by exactly one per commit; never decreases.
    * ``records`` — ``OwnershipRecord`` tuple, sorted by ``resource_id``.
    """

    store_id: str
    address: str
    serial: int
    records: tuple[OwnershipRecord, ...] = ()
    # The checksum of exactly these fields, once known: verified when read from a document, or computed
    # once. Encoding every record costs ~0.1 s per 1,000 records and a plan or apply asks for the checksum
    # several times. Not an init argument, so ``attrs.evolve`` copies start without it and never carry a
    # stale one; records are frozen (their ``attributes`` are never changed in place).
    _checksum: str | None = attrs.field(default=None, init=False, eq=False, repr=False)

    @property
    def by_resource(self) -> dict[str, OwnershipRecord]:
        """The records by ``resource_id``."""
        return {r.resource_id: r for r in self.records}

    def _document_body(self) -> dict[str, Any]:
        return {
            "format": STATE_FORMAT,
            "version": STATE_VERSION,
            "store_id": self.store_id,
            "address": self.address,
            "serial": self.serial,
            "resources": [r.to_json() for r in sorted(self.records, key=lambda r: r.resource_id)],
        }

    def to_document(self) -> dict[str, Any]:
        """The state as its stored, checksummed JSON document."""
        document = self._document_body()
        document["checksum"] = self._checksum or _checksum_of(document)
        object.__setattr__(self, "_checksum", document["checksum"])
        return document

    @property
    def checksum(self) -> str:
        """The checksum of the state's stored document (the one ``commit`` compares)."""
        return self._checksum or str(self.to_document()["checksum"])

    def _remember_checksum(self, document: dict[str, Any]) -> None:
        """Keep the verified checksum of ``document`` when this state encodes back to exactly its body
        (records given in ``resource_id`` order, no field dropped or converted); otherwise it is computed
        when first asked for, as before."""
        # ``==`` would take 3.0 or true for the serial 3 (or the version 1), whose canonical bytes differ.
        if type(document["serial"]) is not int or type(document["version"]) is not int:
            return
        if _encodes_back(document) or self._document_body() == {k: v for k, v in document.items() if k != "checksum"}:
            object.__setattr__(self, "_checksum", str(document["checksum"]))

    @classmethod
    def from_document(cls, document: Any, address: str) -> OwnershipState:
        """The state a stored document holds at ``address``; ``E411`` when it is malformed."""
        try:
            if document.get("format") != STATE_FORMAT or document.get("version") != STATE_VERSION:
                raise _invalid("ownership state")
            if document.get("checksum") != _checksum_of(document):
                raise _invalid("ownership state")
            records = tuple(OwnershipRecord(**r) for r in document["resources"])
            state = cls(str(document["store_id"]), str(document["address"]), int(document["serial"]), records)
            state._remember_checksum(document)
        except StreamtError:
            raise
        except (AttributeError, KeyError, TypeError, ValueError):
            raise _invalid("ownership state") from None
        if state.address != address:
            raise StreamtError(
                Codes.E411_STATE_INVALID,
                "The ownership state belongs to another project or environment.",
                "Check the project name and --env; state files are never shared between addresses.",
            )
        return state


@attrs.frozen
class ActionProgress:
    """The durable outcome of one started action.

    ``index`` is the action's position in ``OperationControl.actions``; ``evidence`` holds
    secret-neutral facts learnt mid-action (``None`` when there are none);
    ``outcome`` is ``started`` (written before the provider call), then ``done``, ``failed``
    (refused, nothing changed) or ``unknown``; after a failure, a created
    resource that was removed again is ``rolled_back`` (or ``rollback_failed``).
    """

    index: int
    outcome: str
    # Secret-neutral facts learnt mid-action that recovery needs (a Flink savepoint path, a job id),
    # written durably before the next provider call; absent from the document when ``None``.
    evidence: dict[str, Any] | None = attrs.field(default=None, hash=False)

    def to_json(self) -> dict[str, Any]:
        """The progress entry as JSON data (``evidence`` only when there is some)."""
        body: dict[str, Any] = {"index": self.index, "outcome": self.outcome}
        if self.evidence is not None:
            body["evidence"] = self.evidence
        return body


@attrs.frozen
class OperationControl:
    """Durable intent and progress of one state-changing operation.

    Written before the first mutation and after every action, so that a crash
    leaves the truth behind: which operation, which actions it meant to run,
    and which ones had started or finished.

    * ``status`` — ``clear``, ``in_progress`` or ``recovery_required``.
    * ``operation_id`` — a UUID per operation; ``operation_kind`` — ``apply``, ``adopt`` ...
    * ``started_at`` — UTC ISO-8601 timestamp; ``base_serial`` — the state serial it started from.
    * ``actions`` — the intended actions (identities and checksums only, no spec values).
    * ``progress`` — ``ActionProgress`` entries in the order they were written.
    * ``failure_code`` — the error code that made recovery required.
    """

    status: str = CLEAR
    operation_id: str | None = None
    operation_kind: str | None = None
    started_at: str | None = None
    base_serial: int | None = None
    actions: tuple[dict[str, Any], ...] = ()
    progress: tuple[ActionProgress, ...] = ()
    failure_code: str | None = None

    @property
    def last_success_index(self) -> int | None:
        """The highest action index whose outcome is ``done``, or ``None``."""
        done = [p.index for p in self.progress if p.outcome == "done"]
        return max(done) if done else None

    def to_document(self) -> dict[str, Any]:
        """The control as its stored, checksummed JSON document."""
        document = self._document_body()
        document["checksum"] = _checksum_of(document)
        return document

    def canonical_bytes(self) -> bytes:
        """``canonical_json(self.to_document())``, with the intended actions encoded once per operation.

        A file is rewritten with every progress entry, and the actions (10,000 in an apply of 10,000
        topics) were encoded twice on each write (checksum, file): 2.2 s over an apply's nine writes.
        ``actions`` is the first key in sorted order, so the canonical text of a document is
        ``{"actions":`` + the actions' own canonical text + the text of the other keys."""
        actions = _ACTIONS_TEXT.of(self.actions)
        body = self._document_body()
        body_text = actions.joined(body)
        body["checksum"] = sha256_checksum(body_text)
        return actions.joined(body)

    def _document_body(self) -> dict[str, Any]:
        return {
            "format": CONTROL_FORMAT,
            "version": CONTROL_VERSION,
            "status": self.status,
            "operation_id": self.operation_id,
            "operation_kind": self.operation_kind,
            "started_at": self.started_at,
            "base_serial": self.base_serial,
            "actions": list(self.actions),
            "progress": [p.to_json() for p in self.progress],
            "failure_code": self.failure_code,
        }

    def safe_status(self) -> dict[str, Any]:
        """The fields that may be shown anywhere: no action contents."""
        return {
            "status": self.status,
            "operation_id": self.operation_id,
            "operation_kind": self.operation_kind,
            "failure_code": self.failure_code,
            "last_success_index": self.last_success_index,
        }

    @classmethod
    def from_document(cls, document: Any) -> OperationControl:
        """The control a stored document holds; ``E411`` when it is malformed or its checksum is wrong."""
        try:
            if document.get("format") != CONTROL_FORMAT or document.get("version") != CONTROL_VERSION:
                raise _invalid("operation control sidecar")
            if document.get("checksum") != _checksum_of(document):
                raise _invalid("operation control sidecar")
            control = cls(
                status=document["status"],
                operation_id=document["operation_id"],
                operation_kind=document["operation_kind"],
                started_at=document["started_at"],
                base_serial=document["base_serial"],
                actions=tuple(document["actions"]),
                progress=tuple(
                    ActionProgress(int(p["index"]), str(p["outcome"]), _evidence(p)) for p in document["progress"]
                ),
                failure_code=document["failure_code"],
            )
        except StreamtError:
            raise
        except (AttributeError, KeyError, TypeError, ValueError):
            raise _invalid("operation control sidecar") from None
        if control.status not in CONTROL_STATUSES:
            raise _invalid("operation control sidecar")
        return control


_ACTIONS_FIRST = b'{"actions":""'


@attrs.frozen
class _EncodedActions:
    """One operation's intended actions and their canonical text (actions are never changed in place)."""

    actions: tuple[dict[str, Any], ...]
    text: bytes

    def joined(self, document: dict[str, Any]) -> bytes:
        """``canonical_json(document)`` where ``document["actions"]`` holds these actions."""
        rest = canonical_json({**document, "actions": ""})
        if not rest.startswith(_ACTIONS_FIRST):  # a key sorting before "actions" would break the splice
            raise AssertionError("the control document's first key is not 'actions'")
        return b'{"actions":' + self.text + rest[len(_ACTIONS_FIRST) :]


class _LastEncodedActions:
    """The last actions encoded, held with the tuple itself: one operation's writes share its tuple
    (``attrs.evolve`` keeps it), so ``is`` finds it; another tuple is encoded anew."""

    def __init__(self) -> None:
        self._last: _EncodedActions | None = None

    def of(self, actions: tuple[dict[str, Any], ...]) -> _EncodedActions:
        last = self._last
        if last is None or last.actions is not actions:
            last = self._last = _EncodedActions(actions, canonical_json(list(actions)))
        return last


_ACTIONS_TEXT = _LastEncodedActions()


def _evidence(progress: dict[str, Any]) -> dict[str, Any] | None:
    evidence = progress.get("evidence")
    if evidence is not None and not isinstance(evidence, dict):
        raise _invalid("operation control sidecar")
    return evidence
