"""Each validation code triggered through the CLI, in text and JSON mode, from a mutated example project."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from shared_material import SHARED
from streamt.cli import run

EXAMPLES = SHARED / "spec" / "examples"
pytestmark = pytest.mark.skipif(not EXAMPLES.is_dir(), reason="spec examples not present")


LEGACY = ("apiVersion: streamt.dev/v1alpha1", "")  # legacy mode: a renamed block is ignored (W401), not E501


def _project(tmp_path: Path, example: str, edits: dict[str, tuple[str, ...]]) -> Path:
    target = tmp_path / example
    shutil.copytree(EXAMPLES / example, target)
    for relative, pairs in edits.items():
        for old, new in zip(pairs[::2], pairs[1::2], strict=True):
            path = target / relative
            path.chmod(0o644)
            text = path.read_text()
            assert old in text, f"mutation anchor missing in {relative}: {old!r}"
            path.write_text(text.replace(old, new, 1))
    return target


PAY = "payments-pipeline"
_AMOUNT = "          - name: amount\n            type: BIGINT"
CASES = {
    "E601_NAMING_VIOLATION": (PAY, {"models/payments_clean.yml": ("name: payments.clean.v1", "name: payments_clean")}),
    "E602_GOVERNANCE_RULE_VIOLATION": (PAY, {"models/payments_clean.yml": ("column: card_pan", "column: other")}),
    "E202_FLINK_REQUIRED": (PAY, {"stream_project.yml": ("  flink:\n", "  flink_disabled:\n", *LEGACY)}),
    "E101_SOURCE_NOT_FOUND": (PAY, {"models/payments_clean.yml": ('source("card_events")', 'source("card_event")')}),
    "E102_MODEL_NOT_FOUND": (PAY, {"models/merchant_totals.yml": ('ref("payments_clean")', 'ref("payment_clean")')}),
    "E104_CYCLE_DETECTED": (PAY, {"models/payments_clean.yml": ('source("card_events")', 'ref("merchant_totals_1m")')}),
    "E105_JINJA_SYNTAX_ERROR": (PAY, {"models/payments_clean.yml": ('{{ source("card_events") }}', "{{ source( }}")}),
    "E107_TEST_MODEL_NOT_FOUND": (PAY, {"tests/payments_tests.yml": ("model: payments_clean", "model: nope")}),
    "E108_EXPOSURE_MODEL_NOT_FOUND": (PAY, {"exposures/consumers.yml": ("- ref: merchant_totals_1m", "- ref: nope")}),
    "E109_EXPOSURE_SOURCE_NOT_FOUND": (PAY, {"exposures/consumers.yml": ("- source: card_events", "- source: nope")}),
    "E110_EXPOSURE_DEPENDENCY_NOT_FOUND": (
        PAY,
        {"exposures/consumers.yml": ("- ref: payments_to_warehouse", "- ref: nope")},
    ),
    "E103_DUPLICATE_NAME": (
        PAY,
        {"models/merchant_totals.yml": ("name: payments_to_warehouse", "name: payments_clean")},
    ),
    "E204_MISSING_SINK_CONFIG": (PAY, {"models/merchant_totals.yml": ("connector: jdbc-sink", "connector: ''")}),
    "E205_CONNECT_REQUIRED": (PAY, {"stream_project.yml": ("  connect:\n", "  connect_off:\n", *LEGACY)}),
    "E501_PARSE_ERROR": (PAY, {"models/payments_clean.yml": ("    owner: team-payments", "    ownr: team-payments")}),
    "W103_MISSING_REF_COLUMN": (PAY, {"exposures/consumers.yml": ("name: captured_cents", "name: captured")}),
    "E502_ENV_VAR_ERROR": (PAY, {"stream_project.yml": ("${KAFKA_BOOTSTRAP_SERVERS:-localhost:9092}", "${NOPE_X}")}),
    "E201_GATEWAY_REQUIRED": (
        "ownership-gateway",
        {"stream_project.yml": ("  conduktor:\n", "  conduktor_off:\n", *LEGACY)},
    ),
    "E111_NAME_COLLISION": (
        "ownership-gateway",
        {"models/views.yml": ("name: customers_legacy_alias", "name: customers_emea_view")},
    ),
    "E208_MISSING_CONFIG": (
        "kafka-streams",
        {"stream_project.yml": ("  kafka_streams:\n", "  kafka_streams_off:\n", *LEGACY)},
    ),
    "W301_COLUMN_TYPE_MISMATCH": (
        "kafka-streams",
        {"stream_project.yml": (_AMOUNT, _AMOUNT.replace("BIGINT", "STRING"))},
    ),
}


@pytest.mark.parametrize("code", sorted(CASES))
@pytest.mark.parametrize("mode", ["json", "text"])
def test_code_is_reported(tmp_path: Path, code: str, mode: str) -> None:
    example, edits = CASES[code]
    project = _project(tmp_path, example, edits)
    out, err = io.StringIO(), io.StringIO()
    exit_code = run(["-o", mode, "validate", "-p", str(project)], stdout=out, stderr=err)
    if mode == "json":
        envelope = json.loads(out.getvalue())
        found = [d["code"] for d in envelope["errors"] + envelope["warnings"]]
        assert code in found, found
    else:
        assert code in err.getvalue(), err.getvalue()
    assert exit_code == (0 if code.startswith("W") else 1)


def test_strict_turns_warnings_into_errors(tmp_path: Path) -> None:
    project = _project(
        tmp_path, "kafka-streams", {"stream_project.yml": (_AMOUNT, _AMOUNT.replace("BIGINT", "STRING"))}
    )
    out = io.StringIO()
    assert run(["-o", "json", "validate", "--strict", "-p", str(project)], stdout=out, stderr=io.StringIO()) == 1
    assert "W301_COLUMN_TYPE_MISMATCH" in [e["code"] for e in json.loads(out.getvalue())["errors"]]
