"""The security class: masks removed or weakened, classification changes, access widened, secrets moved
into plain config; each reaches the readers of the column, and ``--fail-on security`` gates on it."""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from agree import agree
from test_compare import RAW, SINK, project, report

VIEW = {
    "name": "orders_view",
    "materialized": "flink",
    "access": "private",
    "group": "payments",
    "sql": "SELECT id, n FROM {{ ref('raw') }}",
    "security": {
        "classification": {"n": "sensitive"},
        "policies": [{"mask": {"column": "n", "method": "redact"}}, {"deny": {"roles": ["intern"]}}],
    },
}
APP = {"name": "app", "type": "application", "consumes": [{"ref": "orders_view", "columns": [{"name": "n"}]}]}
OTHER = {"name": "ids_only", "type": "application", "consumes": [{"ref": "orders_view", "columns": [{"name": "id"}]}]}
TO_DB = {**SINK, "group": "payments", "from": [{"ref": "orders_view"}]}
TO_DB["sink"] = {**SINK["sink"], "config": {**SINK["sink"]["config"], "connection.password": "${DB_PASSWORD}"}}


def files(view: dict[str, Any] | None = None, sink: dict[str, Any] | None = None) -> dict[str, bytes]:
    return project(models=[RAW, view or VIEW, sink or TO_DB], exposures=[APP, OTHER])


def changed(**updates: Any) -> dict[str, Any]:
    view = copy.deepcopy(VIEW)
    view.update(updates)
    return view


def classes(result: Any) -> dict[str, str]:
    return {f.field: f.classification for c in result.changes for f in c.fields}


def test_removing_the_mask_on_a_sensitive_column_is_security_and_reaches_its_readers() -> None:
    after = changed(security={"classification": {"n": "sensitive"}, "policies": [{"deny": {"roles": ["intern"]}}]})
    result = report(files(), files(after))
    shown, data, md = agree(result)
    assert classes(result) == {"security.mask.n": "security"}
    assert data["summary"]["highest"] == "security" and data["summary"]["security"] == 1
    effects = {i["name"]: i["effect"] for i in data["impacted"]}
    assert effects == {"app": "security", "to_db": "security"}  # ids_only does not read n
    assert "SECURITY     model orders_view (changed)" in shown and "### streamt impact: security" in md


def test_a_weaker_mask_method_or_fewer_covered_roles_is_security_a_stronger_one_is_not() -> None:
    def mask(**policy: Any) -> dict[str, Any]:
        return changed(security={**VIEW["security"], "policies": [{"mask": {"column": "n", **policy}}]})

    weaker = report(files(mask(method="redact")), files(mask(method="partial")))
    assert classes(weaker) == {"security.mask.n": "security"}
    stronger = report(files(mask(method="partial")), files(mask(method="hash")))
    assert classes(stronger) == {"security.mask.n": "non-breaking"}
    narrowed = report(files(mask(method="hash")), files(mask(method="hash", for_roles=["analyst"])))
    assert classes(narrowed) == {"security.mask.n": "security"}
    agree(weaker), agree(stronger), agree(narrowed)


def test_classification_change_access_widening_and_a_lifted_deny_are_security() -> None:
    after = changed(
        access="public",
        security={"classification": {"n": "internal"}, "policies": [{"mask": {"column": "n", "method": "redact"}}]},
    )
    result = report(files(), files(after))
    agree(result)
    assert classes(result) == {"classification.n": "security", "security.deny": "security", "access": "security"}
    narrowed = report(files(after), files())
    assert classes(narrowed)["access"] == "non-breaking"
    ungrouped = report(files(), files(changed(group=None)))
    assert classes(ungrouped) == {"group": "security"}
    agree(ungrouped)


def test_a_secret_moved_into_plain_config_is_security_and_never_echoed() -> None:
    plain = copy.deepcopy(TO_DB)
    plain["sink"]["config"]["connection.password"] = "hunter2-literal"
    result = report(files(), files(sink=plain))
    shown, data, md = agree(result)
    assert classes(result) == {"sink.config.connection.password": "security"}
    assert "hunter2" not in shown + md + str(data)


def test_fail_on_security_gates_only_on_a_security_change() -> None:
    after = changed(security={"classification": {"n": "sensitive"}, "policies": []})
    assert report(files(), files(after)).meets("security")
    assert report(files(), files(after)).meets("breaking")  # security is the most severe level
    reworded = changed(description="now documented")
    assert not report(files(), files(reworded)).meets("security")
