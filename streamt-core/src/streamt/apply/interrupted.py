"""An apply stopped by SIGTERM or Ctrl-C: what is durable, and the commands that come next.

Nothing an interrupted apply did is undone on the way out (a rollback would be more unreviewed
mutation): the marker stays, and the operator needs its id, whether the ownership state was
committed, the last action the provider acknowledged, and the exact commands that continue.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from streamt.errors import Codes, Diagnostic
from streamt.interruption import CommandInterrupted, Terminated, signal_of, sigterm_raises
from streamt.result import Result
from streamt.state.operations import next_steps
from streamt.state.records import CLEAR


class BeganOperation:
    """The executor's ``on_begin``: remembers the durable operation this run began, then hands it on."""

    def __init__(self, then: Callable[[Any], None] | None) -> None:
        self.control: Any = None
        self.then = then

    def __call__(self, control: Any) -> None:
        self.control = control
        if self.then is not None:
            self.then(control)


@contextmanager
def reported(
    backend: Any, env: str, plan_path: str | None, then: Callable[[Any], None] | None
) -> Iterator[BeganOperation]:
    """While open, SIGTERM and Ctrl-C end the apply as ``CommandInterrupted`` with an ``E435`` result."""
    began = BeganOperation(then)
    with sigterm_raises():
        try:
            yield began
        except (Terminated, KeyboardInterrupt) as exc:
            result = interrupted_result(backend, began.control, env, plan_path, exc)
            raise CommandInterrupted(result, signal_of(exc)) from None


def interrupted_result(backend: Any, began: Any, env: str, plan_path: str | None, exc: BaseException) -> Result:
    signal_name = "SIGTERM" if isinstance(exc, Terminated) else "Ctrl-C"
    if began is None:
        data: dict[str, Any] = {
            "operation_id": None,
            "committed": False,
            "last_acknowledged_action": None,
            "next_steps": [],
        }
        message = f"Apply was interrupted by {signal_name} before its operation began: nothing was changed."
        return _result(message, "Run the same `streamt apply` again when ready.", data)
    operation_id = str(began.operation_id)
    current, committed = _durable_outcome(backend, began)
    steps = next_steps(began.operation_kind, operation_id, env, plan_path)
    last = _last_acknowledged(current if current is not None else began)
    data = {
        "operation_id": operation_id,
        "operation_kind": began.operation_kind,
        "committed": committed,
        "last_acknowledged_action": last,
        "next_steps": steps if committed is not True else [],
    }
    acknowledged = f"{last['action']} of {last['kind']} '{last['identity']}'" if last else "none"
    outcome = {True: "true", False: "false", None: "unknown"}[committed]
    message = (
        f"Apply was interrupted by {signal_name} during operation {operation_id} (committed: {outcome}; "
        f"last acknowledged action: {acknowledged})."
    )
    if committed is True:
        suggestion = "The change is committed and the marker is clear; inspect it with `streamt state status`."
    else:
        suggestion = "Do not rerun apply; the marker blocks it (E419). Run " + " then ".join(f"`{s}`" for s in steps)
        suggestion += "."
    return _result(message, suggestion, data)


def _result(message: str, suggestion: str, data: dict[str, Any]) -> Result:
    details = {"operation_id": data["operation_id"]} if data["operation_id"] else {}
    diagnostic = Diagnostic(Codes.E435_APPLY_INTERRUPTED, message, suggestion, details=details)
    return Result("apply", data=data, errors=(diagnostic,))


def _durable_outcome(backend: Any, began: Any) -> tuple[Any, bool | None]:
    """``(current control or None, committed)``: ``None`` when the store cannot tell (fail closed)."""
    try:
        current = backend.read_control()
        state = backend.read_state()
    except Exception:  # an interrupted connection or file read: the outcome is unknown, never assumed
        return None, None
    advanced = state is not None and state.serial > (began.base_serial or 0)
    if current.status == CLEAR or current.operation_id != began.operation_id:
        return None, True if advanced else None
    # The marker is still ours: a serial that already advanced means the commit was cut short.
    return current, None if advanced else False


def _last_acknowledged(control: Any) -> dict[str, Any] | None:
    done = [p.index for p in control.progress if p.outcome == "done"]
    if not done:
        return None
    intent = next((a for a in control.actions if a.get("position") == done[-1]), None)
    if intent is None:
        return {"position": done[-1]}
    return {key: intent.get(key) for key in ("position", "action", "kind", "identity")}
