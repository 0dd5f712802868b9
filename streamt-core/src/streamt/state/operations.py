"""The operation kinds that operation control records, and which workflow may finish each.

``begin_operation(kind, ...)`` stores the kind with the durable intent, so whoever finds an
unfinished operation can tell what began it. Generic reviewed recovery (``state recovery-plan`` /
``state recover``) re-observes and classifies the actions of ``apply`` and ``adopt`` only. A runner
replacement is journaled step by step by its coordinator and ends in a completion receipt; only
``state runner-status`` / ``state resume`` verify its exact candidate, journal and receipt, so
generic recovery must never resolve it (it could record the candidate without them). Any other
kind is refused too: fail closed on what core does not know.
"""

from __future__ import annotations

from typing import Any

from streamt.errors import Codes, StreamtError

APPLY_OPERATION = "apply"
ADOPT_OPERATION = "adopt"
RUNNER_REPLACEMENT_OPERATION = "kafka_streams_replacement"
GENERIC_RECOVERY_OPERATIONS = (APPLY_OPERATION, ADOPT_OPERATION)


def unfinished_operation_commands(kind: str | None, operation_id: str | None = None, env: str | None = None) -> str:
    """The commands that finish an unfinished operation of ``kind``, for an ``E419`` suggestion.

    With the ``operation_id`` (and the environment it ran in) the commands are spelled out exactly.
    """
    if operation_id is not None:
        return " then ".join(f"`{step}`" for step in next_steps(kind, operation_id, env))
    if kind == RUNNER_REPLACEMENT_OPERATION:
        return (
            "`streamt state runner-status` / `streamt state resume` with the original format-6 plan file and "
            "this operation id"
        )
    return "`streamt state recovery-plan` / `streamt state recover`"


def next_steps(kind: str | None, operation_id: str, env: str | None, plan_path: str | None = None) -> list[str]:
    """The exact commands an operator runs next for an unfinished operation of ``kind``.

    A runner replacement continues from its original format-6 plan (``plan_path``, else FILE);
    anything else is inspected, then resolved by reviewed recovery (OUTCOME: ``observed``,
    ``rolled_back`` or ``abandoned_before_mutation``, whichever the live resources prove).
    """
    if kind == RUNNER_REPLACEMENT_OPERATION:
        return runner_replacement_steps(operation_id, env, plan_path)
    where = _env_option(env)
    return [
        f"streamt state status{where}",
        f"streamt state recovery-plan{where} --resolution OUTCOME --out recovery.json",
    ]


def runner_replacement_steps(operation_id: str, env: str | None, plan_path: str | None = None) -> list[str]:
    """The commands that diagnose and continue one replacement (the original plan file, else FILE)."""
    tail = f"--plan {plan_path or 'FILE'} --operation-id {operation_id}"
    where = _env_option(env)
    return [f"streamt state runner-status{where} {tail}", f"streamt state resume{where} {tail}"]


def _env_option(env: str | None) -> str:
    # The single-environment project's implicit `default` takes no --env (E503 otherwise).
    return f" -e {env}" if env and env != "default" else ""


def require_generic_recovery(kind: str | None, operation_id: str, env: str | None) -> None:
    """``E419`` unless generic reviewed recovery may resolve an operation of ``kind`` (checked before any write)."""
    if kind in GENERIC_RECOVERY_OPERATIONS:
        return
    data: dict[str, Any] = {"operation_id": operation_id, "operation_kind": kind, "next_steps": []}
    if kind == RUNNER_REPLACEMENT_OPERATION:
        data["next_steps"] = runner_replacement_steps(operation_id, env)
        message = (
            f"Operation {operation_id} is a reviewed Kafka Streams runner replacement: generic recovery never "
            "resolves it (only state resume verifies its candidate, journal and receipt)."
        )
        suggestion = (
            f"Diagnose it with `{data['next_steps'][0]}` and continue it with `{data['next_steps'][1]}`, "
            "FILE being the original format-6 plan file (`streamt state resume --help` describes both)."
        )
    else:
        message = (
            f"Operation {operation_id} ({kind}) was not begun by apply or adopt: generic recovery cannot resolve it."
        )
        suggestion = "Keep the marker; finish it with the workflow that began it and inspect `streamt state status`."
    raise StreamtError(
        Codes.E419_STATE_RECOVERY_REQUIRED,
        message,
        suggestion,
        details={"operation_id": operation_id, "operation_kind": kind},
        data=data,
    )
