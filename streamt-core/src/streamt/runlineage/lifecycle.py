"""Preflight and the guarded window of one command run, shared by ``apply`` and ``test``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from streamt.interruption import Terminated, sigterm_raises
from streamt.runlineage.options import Namespaces, resolve
from streamt.runlineage.run import ABORT, FAIL, CommandRun
from streamt.runlineage.transport import build_transport, transport_config


def prepare(namespaces: Namespaces, job_name: str, inputs: tuple[tuple[str, str], ...] = ()) -> CommandRun:
    """Everything that can fail before the command starts (E506): the transport and the event model."""
    run = CommandRun(build_transport(transport_config()), namespaces.job, job_name, inputs)
    run.event("START", "1970-01-01T00:00:00Z")  # builds the model once: a bad value fails here, not mid-run
    return run


@contextmanager
def guarded(run: CommandRun | None) -> Iterator[None]:
    """After START: an expected failure emits FAIL, SIGTERM or Ctrl-C emits ABORT; then it goes on.

    The interruption goes on too: ``cli.run`` ends the process by SIGTERM after rendering.
    """
    if run is None:
        yield
        return
    with sigterm_raises():
        try:
            yield
        except (Terminated, KeyboardInterrupt):
            run.finish(ABORT)
            raise
        except Exception:  # a StreamtError or a defect: the run failed either way, and says so
            run.finish(FAIL)
            raise


def apply_run(
    project: Any, enabled: bool, job: str | None, kafka: str | None, gateway: str | None
) -> CommandRun | None:
    """The run of an ``apply`` (``None`` unless requested); apply emits no datasets."""
    if not enabled:
        return None
    namespaces = resolve(job, kafka, gateway, None, need_kafka=False)
    return prepare(namespaces, f"{project.name}.{project.env}.apply")


def begin_hook(run: CommandRun | None) -> Callable[[Any], None] | None:
    """Called by the executor right after the durable intent is written, before the first mutation.

    The run is the operation: its ID is the intent's UUID and START carries the intent's
    ``started_at`` exactly.
    """
    if run is None:
        return None

    def started(control: Any) -> None:
        run.run_id = str(control.operation_id)
        run.start(str(control.started_at))

    return started
