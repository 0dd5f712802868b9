"""Preflight and the guarded window of one command run, shared by ``apply`` and ``test``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from streamt.runlineage.options import Namespaces
from streamt.runlineage.run import ABORT, FAIL, CommandRun, Terminated, sigterm_aborts, terminate_again
from streamt.runlineage.transport import build_transport, transport_config


def prepare(namespaces: Namespaces, job_name: str, inputs: tuple[tuple[str, str], ...] = ()) -> CommandRun:
    """Everything that can fail before the command starts (E506): the transport and the event model."""
    run = CommandRun(build_transport(transport_config()), namespaces.job, job_name, inputs)
    run.event("START", "1970-01-01T00:00:00Z")  # builds the model once: a bad value fails here, not mid-run
    return run


@contextmanager
def guarded(run: CommandRun | None) -> Iterator[None]:
    """After START: an expected failure emits FAIL, SIGTERM or Ctrl-C emits ABORT; then it goes on."""
    if run is None:
        yield
        return
    with sigterm_aborts():
        try:
            yield
        except (Terminated, KeyboardInterrupt) as exc:
            run.finish(ABORT)
            if isinstance(exc, Terminated):
                terminate_again()
            raise
        except Exception:  # a StreamtError or a defect: the run failed either way, and says so
            run.finish(FAIL)
            raise
