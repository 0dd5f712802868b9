"""The error and warning taxonomy: one registry of every stable code.

Codes are what CI pipelines and agents branch on, so they are never typed as
loose strings across the code base: refer to them through ``Codes`` (e.g.
``Codes.E101_SOURCE_NOT_FOUND``). Plugins may add their own codes through the
``streamt_error_codes`` hook; a plugin code must not redefine a core one.
"""

from __future__ import annotations

import re
from typing import Any

from streamt.values import Value

_CODE_RE = re.compile(r"^[EW][0-9]{3}_[A-Z0-9_]+$")


class ErrorCode(Value):
    """A stable, documented code such as ``E101_SOURCE_NOT_FOUND``.

    * ``code`` — ``[EW]NNN_NAME``; ``E`` for errors, ``W`` for warnings.
    * ``meaning`` — one line, listed in the documentation.
    * ``owner`` — the distribution that registered it (``streamt-core`` for core codes).
    """

    __slots__ = _fields = ("code", "meaning", "owner")

    code: str
    meaning: str
    owner: str

    def __init__(self, code: str, meaning: str, owner: str = "streamt-core") -> None:
        if not _CODE_RE.match(code):
            raise ValueError(f"malformed error code {code!r}")
        self._fill(code, meaning, owner)

    @property
    def is_warning(self) -> bool:
        """Whether the code is a warning (``W...``) rather than an error (``E...``)."""
        return self.code.startswith("W")

    def __str__(self) -> str:
        return self.code


# (code, meaning). Source: the CLI reference's "Structured Error Codes", plus
# codes it mentions in command sections, plus the E9xx block that streamt
# itself needs for usage and plugin problems (not provider or project errors).
_CORE_CODES: tuple[tuple[str, str], ...] = (
    # Validation
    ("E101_SOURCE_NOT_FOUND", "Referenced source does not exist"),
    ("E102_MODEL_NOT_FOUND", "Referenced model does not exist"),
    ("E103_DUPLICATE_NAME", "Duplicate resource name"),
    ("E104_CYCLE_DETECTED", "Circular dependency in DAG"),
    ("E105_JINJA_SYNTAX_ERROR", "Jinja template syntax error in SQL"),
    ("E106_ACCESS_DENIED", "Access denied by governance rules"),
    ("E107_TEST_MODEL_NOT_FOUND", "Test references nonexistent model"),
    ("E108_EXPOSURE_MODEL_NOT_FOUND", "Exposure references nonexistent model"),
    ("E109_EXPOSURE_SOURCE_NOT_FOUND", "Exposure references nonexistent source"),
    ("E110_EXPOSURE_DEPENDENCY_NOT_FOUND", "Exposure dependency not found"),
    ("E111_NAME_COLLISION", "Name collision between resources"),
    # Configuration
    ("E201_GATEWAY_REQUIRED", "Gateway config required for virtual topics"),
    ("E202_FLINK_REQUIRED", "Flink config required for Flink materializations"),
    ("E203_CONFLUENT_FLINK_REQUIRED", "Confluent Cloud Flink required (e.g., for ML_PREDICT)"),
    ("E204_MISSING_SINK_CONFIG", "Sink model missing connector configuration"),
    ("E205_CONNECT_REQUIRED", "Connect cluster config required for sink connectors"),
    ("E206_SQL_GATEWAY_NOT_CONFIGURED", "Flink SQL Gateway URL not configured"),
    ("E207_CONTINUOUS_TEST_WITHOUT_FLINK", "Continuous test requires Flink cluster"),
    ("E208_MISSING_CONFIG", "Required configuration is missing"),
    # Schema
    ("E301_INVALID_STATE_TTL", "Invalid state TTL configuration"),
    ("E302_CONTRACT_VIOLATION", "Enforced model contract does not match the model output"),
    # Deployment
    ("E401_CANNOT_REDUCE_PARTITIONS", "Cannot reduce topic partition count"),
    ("E402_SCHEMA_INCOMPATIBLE", "Schema incompatible with registry"),
    ("E403_FLINK_SQL_ERROR", "Flink SQL execution error"),
    ("E404_AUTH_FAILED", "Authentication failed"),
    ("E405_SSL_ERROR", "SSL/TLS connection error"),
    ("E406_CONNECTION_REFUSED", "Connection refused by service"),
    ("E407_DEPLOY_ERROR", "General deployment error"),
    (
        "E408_PLAN_FILE_INVALID",
        "A reviewed plan or recovery confirmation is malformed, mismatched, or fails integrity validation",
    ),
    ("E409_PLAN_STALE", "Project, environment, ownership state, or live evidence drifted after review"),
    ("E410_OWNERSHIP_REQUIRED", "A live resource needs an explicit ownership decision or adoption"),
    ("E411_STATE_INVALID", "Ownership state is malformed or belongs to another context"),
    ("E412_ADOPTION_TARGET_INVALID", "Adoption target is missing, ambiguous, or not explicitly declared adopted"),
    ("E413_ADOPTION_LIVE_NOT_FOUND", "Declared physical resource does not exist live"),
    ("E414_ADOPTION_CONFIRMATION_REQUIRED", "Exact resource and environment confirmation is absent or incorrect"),
    ("E415_ADOPTION_STATE_CONFLICT", "Existing ownership state conflicts with the requested claim"),
    ("E416_ADOPTION_FAILED", "Live observation or atomic adoption-state persistence failed"),
    ("E417_SAFETY_BLOCKED", "Apply refused an unsupported partition, schema, or Flink migration before mutation"),
    (
        "E418_REVIEWED_PLAN_REQUIRED",
        "Direct apply is disabled by environment policy; create and apply a reviewed plan file",
    ),
    ("E419_STATE_RECOVERY_REQUIRED", "An unfinished operation marker blocks mutation pending explicit recovery"),
    ("E420_STATE_BACKEND_UNAVAILABLE", "The configured deployment-state provider cannot be used; no fallback occurs"),
    ("E421_REMOTE_STATE_REQUIRED", "Environment policy rejects apply/adopt while local deployment state is selected"),
    ("E422_STATE_LOCK_TIMEOUT", "The bounded wait for deployment-state operation authority expired"),
    ("E423_STATE_LOCK_LOST", "The operation no longer owns its deployment-state lock"),
    ("E424_STATE_CONFLICT", "The observed deployment state or operation control changed; re-observe or re-plan"),
    ("E425_STATE_UNKNOWN_OUTCOME", "A state transition may have committed; inspect status and never blindly replay it"),
    (
        "E426_STATE_RELEASE_FAILED_AFTER_COMMIT",
        "The commit is verified but authority release is not; data.committed is true",
    ),
    ("E428_CONNECTOR_REMOVAL_DRIFT", "A connector DELETE started and its outcome could not be proven"),
    ("E429_SERVICE_DEADLINE_EXCEEDED", "A service did not answer a request completely within its total deadline"),
    (
        "E430_SERVICE_RESPONSE_INVALID",
        "A service answered with something streamt does not accept: not HTTP, too large, or nested too deeply",
    ),
    ("E435_APPLY_INTERRUPTED", "SIGTERM or Ctrl-C stopped apply; data names the operation and the next commands"),
    (
        "E436_DECLARATION_NOT_APPLICABLE",
        "A valid declaration no provider can apply as written (a mask on a missing column, keyless compaction)",
    ),
    # Parse
    ("E501_PARSE_ERROR", "YAML/SQL parsing error"),
    ("E502_ENV_VAR_ERROR", "Environment variable not set"),
    ("E503_ENVIRONMENT_ERROR", "Environment configuration error"),
    # E504, E505, E507, E508 and E509 belong to their exporters, and E510 to streamt-impact, which register
    # them through streamt_error_codes. E506 stays here: core emits it too (OpenLineage run events of test/apply).
    ("E506_OPENLINEAGE_INVALID", "OpenLineage namespace, mapping, validation, serialization, or output failed"),
    # Governance
    ("E601_NAMING_VIOLATION", "Resource name violates naming convention"),
    ("E602_GOVERNANCE_RULE_VIOLATION", "Declaration violates a governance rule"),
    # Import
    ("E701_IMPORT_DISCOVERY_FAILED", "Kafka discovery failed before any declaration was written"),
    ("E702_IMPORT_TARGET_EXISTS", "Import target already exists and was not changed"),
    ("E703_IMPORT_NAME_COLLISION", "Generated name collides with another generated source or an existing source/model"),
    ("E704_IMPORT_PATH_INVALID", "Output is not a direct YAML declaration under sources/"),
    ("E705_IMPORT_VALIDATION_FAILED", "Generated declaration failed strict validation"),
    ("E706_IMPORT_WRITE_FAILED", "Exclusive declaration creation failed"),
    # streamt itself: usage, plugins, unimplemented paths, internal faults
    ("E900_USAGE_ERROR", "The command line is malformed: unknown option, missing argument or bad value"),
    ("E901_PLUGIN_LOAD_FAILED", "A plugin failed to import or registered a malformed hook and was skipped"),
    ("E902_PLUGIN_INCOMPATIBLE", "A plugin was built for a streamt-core range that excludes this core"),
    ("E903_PLUGIN_REQUIRED", "The project or command needs a capability that no installed plugin provides"),
    ("E904_NOT_IMPLEMENTED", "This capability is declared but not implemented in this release"),
    ("E905_OUTPUT_WRITE_FAILED", "An output file or directory could not be written atomically"),
    (
        "E906_PLUGIN_CONFLICT",
        "A plugin's claim on a held name is refused (the holder keeps it); two claiming one kind: neither is used",
    ),
    ("E999_INTERNAL_ERROR", "An unexpected internal error; please report it"),
    # Warnings
    ("W101_STATE_TTL_RECOMMENDED", "Stateful query should set state TTL"),
    ("W102_MISSING_SOURCE_COLUMN", "Source column referenced but not defined"),
    ("W103_MISSING_REF_COLUMN", "Referenced model column not found"),
    ("W104_RULE_MAX_RETENTION", "Topic retention exceeds governance limit"),
    ("W105_RULE_INVALID_OWNER", "Owner not in allowed owners list"),
    ("W106_LOCAL_STATE_ONLY", "Local ownership state is unsafe for shared CI without remote locking"),
    ("W107_SCHEMA_ENRICHMENT_SKIPPED", "Optional Schema Registry enrichment was unavailable or unsupported"),
    ("W108_IMPORT_TARGET_EXISTS", "Dry-run target exists; a real import would refuse to overwrite it"),
    ("W109_ODCS_SCHEMA_INCOMPLETE", "A source or model has no declared columns, so its ODCS object omits properties"),
    (
        "W110_OPENLINEAGE_SCHEMA_INCOMPLETE",
        "A dataset has no declared columns, so its OpenLineage event omits the schema facet",
    ),
    ("W111_OPENLINEAGE_SINK_OUTPUT_OMITTED", "A sink job has no normalized OpenLineage output dataset"),
    ("W112_OPENLINEAGE_EMIT_FAILED", "OpenLineage delivery failed without changing command truth"),
    ("W113_BACKSTAGE_SINK_OUTPUT_OMITTED", "A sink destination is omitted from the Backstage catalog"),
    ("W114_BACKSTAGE_EXPOSURE_OMITTED", "An exposure is omitted from the Backstage catalog"),
    ("W115_DATAHUB_SINK_OUTPUT_OMITTED", "A sink DataJob is emitted without an invented destination Dataset"),
    ("W116_DATAHUB_EXPOSURE_OMITTED", "One exposure occurrence is omitted"),
    ("W117_DATAHUB_TAGS_OMITTED", "One declaration's tag mapping is deferred"),
    ("W118_DATAHUB_OWNER_OMITTED", "One declaration's ownership mapping is deferred"),
    ("W120_STRIMZI_EXTERNAL_TOPIC_OMITTED", "An external topic is omitted from the Strimzi export"),
    ("W121_STRIMZI_ARTIFACTS_OMITTED", "Non-topic artifacts are omitted from the Strimzi export"),
    ("W122_RULE_REQUIRE_TESTS", "A model has no tests although rules.models.require_tests is set"),
    ("W123_TEST_DEPLOY_RESERVED", "streamt test --deploy is reserved: tests ran locally and nothing was deployed"),
    ("W201_SQL_PARSE_WARNING", "Non-fatal SQL parsing issue"),
    ("W202_UNUSED_SOURCE", "Defined source not referenced by any model"),
    ("W203_SOURCE_NO_COLUMNS", "Source has no column definitions"),
    ("W301_COLUMN_TYPE_MISMATCH", "Column type mismatch detected"),
    ("W401_UNKNOWN_FIELD_IGNORED", "An unknown key was ignored (legacy project without apiVersion)"),
    ("W901_PLUGIN_WARNING", "A plugin reported a non-fatal problem"),
)


class _Registry:
    """Holds every known code; attribute access returns the ``ErrorCode``."""

    def __init__(self) -> None:
        self._codes: dict[str, ErrorCode] = {}
        for code, meaning in _CORE_CODES:
            self._codes[code] = ErrorCode(code, meaning)

    def register(self, code: ErrorCode) -> None:
        existing = self._codes.get(code.code)
        if existing is not None and existing != code:
            raise ValueError(f"error code {code.code} is already registered by {existing.owner}")
        self._codes[code.code] = code

    def unregister(self, code: str) -> None:
        """Forget a plugin's code (its plugin was unregistered); core codes stay."""
        existing = self._codes.get(code)
        if existing is not None and existing.owner != "streamt-core":
            del self._codes[code]

    def get(self, code: str) -> ErrorCode:
        return self._codes[code]

    def __contains__(self, code: object) -> bool:
        return code in self._codes

    def all(self) -> list[ErrorCode]:
        return sorted(self._codes.values(), key=lambda c: c.code)

    def __getattr__(self, name: str) -> ErrorCode:
        try:
            return self.__dict__["_codes"][name]
        except KeyError:
            raise AttributeError(f"unknown error code {name}") from None


Codes = _Registry()


class Diagnostic(Value):
    """One error or warning as shown to users and to ``-o json`` consumers.

    * ``code`` — the ``ErrorCode`` (``Codes.E202_FLINK_REQUIRED`` ...).
    * ``message`` — one human sentence.
    * ``suggestion`` — what to do about it, or ``None``.
    * ``location`` — a human pointer such as ``models/orders.yml:12:5``.
    * ``details`` — extra machine-readable fields (e.g. ``rule`` for
      governance violations, ``operation_id`` for state failures).

    Never put a secret in any field.
    """

    __slots__ = _fields = ("code", "message", "suggestion", "location", "details")

    code: ErrorCode
    message: str
    suggestion: str | None
    location: str | None
    details: dict[str, Any]

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        suggestion: str | None = None,
        location: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        self._fill(code, message, suggestion, location, {} if details is None else details)

    @property
    def is_warning(self) -> bool:
        """Whether its code is a warning (``W...``)."""
        return self.code.is_warning

    def to_json(self) -> dict[str, Any]:
        """The diagnostic as JSON data: code, message, suggestion, location, then the details."""
        out: dict[str, Any] = {"code": self.code.code, "message": self.message}
        out["suggestion"] = self.suggestion
        if self.location:
            out["location"] = self.location
        out.update({k: v for k, v in sorted(self.details.items()) if k not in out})
        return out


class StreamtError(Exception):
    """An expected failure that carries one or more diagnostics.

    Raise it anywhere below a command; the CLI turns it into exit code 1 and
    the structured envelope. ``data`` is merged into the envelope's ``data``
    (for example ``{"committed": True}`` or an ``operation_id``).
    """

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        suggestion: str | None = None,
        *,
        location: str | None = None,
        details: dict[str, Any] | None = None,
        data: dict[str, Any] | None = None,
        more: list[Diagnostic] | None = None,
    ) -> None:
        super().__init__(message)
        first = Diagnostic(code, message, suggestion, location, dict(details or {}))
        self.diagnostics: list[Diagnostic] = [first, *(more or [])]
        self.data: dict[str, Any] = dict(data or {})

    @classmethod
    def from_diagnostics(cls, diagnostics: list[Diagnostic], data: dict[str, Any] | None = None) -> StreamtError:
        """One error carrying every diagnostic (the first is its code and message)."""
        if not diagnostics:
            raise ValueError("StreamtError needs at least one diagnostic")
        first, *rest = diagnostics
        err = cls(
            first.code,
            first.message,
            first.suggestion,
            location=first.location,
            details=first.details,
            data=data,
            more=rest,
        )
        return err


def closest(name: str, candidates: list[str] | tuple[str, ...] | set[str], n: int = 3) -> list[str]:
    """Close matches for 'did you mean' suggestions, best first."""
    import difflib

    return difflib.get_close_matches(name, sorted(candidates), n=n, cutoff=0.6)


def did_you_mean(name: str, candidates: list[str] | tuple[str, ...] | set[str]) -> str | None:
    """``"Did you mean 'x'?"`` for close matches, else ``"Available: ..."``; ``None`` without candidates."""
    matches = closest(name, candidates)
    if matches:
        return "Did you mean " + " or ".join(repr(m) for m in matches) + "?"
    if candidates:
        return "Available: " + ", ".join(sorted(candidates))
    return None
