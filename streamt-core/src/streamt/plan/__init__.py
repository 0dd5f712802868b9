"""Planning: ordered actions for compiled artifacts, and the reviewed plan file.

Public API:

* ``Observation``, ``Action``, ``SafetyBlocker``, ``StateReference``, ``Plan``
  — the values planners and the engine exchange (``streamt.plan.model``).
* ``plan_offline(project, compiled, plugins=None) -> Plan`` — every managed
  artifact a create, every external one a no-op, in dependency order.
* ``planners_by_kind(plugins)`` / ``DefaultPlanner`` — how a kind finds its planner.
* ``environment_fingerprint(project)`` — digest of the non-secret target settings.
* ``plan_document`` / ``plan_bytes`` / ``write_plan_file`` — format 5, with integrity checksum.
* ``read_plan_file(path) -> ReviewedPlan`` (E408 on any defect) and
  ``require_authorizing(plan)`` (E408 for offline plans).
* ``plan_text`` / ``plan_data`` — the command's text and JSON renderings.
"""

from streamt.plan.engine import DefaultPlanner, environment_fingerprint, plan_offline, planners_by_kind
from streamt.plan.model import Action, Observation, Plan, SafetyBlocker, StateReference
from streamt.plan.planfile import (
    FORMAT,
    FORMAT_VERSION,
    ReviewedPlan,
    plan_bytes,
    plan_document,
    read_plan_file,
    require_authorizing,
    write_plan_file,
)
from streamt.plan.render import plan_data, plan_text

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "Action",
    "DefaultPlanner",
    "Observation",
    "Plan",
    "ReviewedPlan",
    "SafetyBlocker",
    "StateReference",
    "environment_fingerprint",
    "plan_bytes",
    "plan_data",
    "plan_document",
    "plan_offline",
    "plan_text",
    "planners_by_kind",
    "read_plan_file",
    "require_authorizing",
    "write_plan_file",
]
