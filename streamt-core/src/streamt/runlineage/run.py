"""One command run: START, then exactly one COMPLETE, FAIL or ABORT, then the transport is closed.

Delivery never changes the command: a failed emit or close adds ``W112_OPENLINEAGE_EMIT_FAILED``
(naming the event and the exception class, never its text, which may carry a URL or token) and
the command goes on. While a run is open, SIGTERM is turned into ``Terminated`` so the command
can emit ABORT on its way out; ``cli.run`` then still ends the process by SIGTERM
(``streamt.interruption``).
"""

from __future__ import annotations

import datetime
import uuid
from typing import Any

import attrs

from streamt import __version__
from streamt.errors import Codes, Diagnostic

PRODUCER = f"https://github.com/streamt/streamt/tree/v{__version__}/streamt-core"
START, COMPLETE, FAIL, ABORT = "START", "COMPLETE", "FAIL", "ABORT"


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@attrs.define
class CommandRun:
    transport: Any
    namespace: str
    job_name: str
    inputs: tuple[tuple[str, str], ...] = ()  # (namespace, topic)
    run_id: str = attrs.field(factory=lambda: str(uuid.uuid4()))
    warnings: list[Diagnostic] = attrs.field(factory=list)
    started: bool = False
    finished: bool = False

    def start(self, event_time: str | None = None) -> None:
        self.started = True
        self._emit(START, event_time or now())

    def finish(self, state: str) -> None:
        """The terminal event (once), then close the transport."""
        if not self.started or self.finished:
            return
        self.finished = True
        self._emit(state, now())
        try:
            closed = self.transport.close(5.0)
        except Exception as exc:  # any close failure is only a warning
            self._warn(f"closing the OpenLineage transport failed ({type(exc).__name__})")
        else:
            if closed is False:
                self._warn("the OpenLineage transport did not close in time")

    def event(self, state: str, event_time: str) -> Any:
        from openlineage.client.event_v2 import InputDataset, Job, Run, RunEvent, RunState
        from openlineage.client.facet_v2 import job_type_job

        job_type = job_type_job.JobTypeJobFacet(
            processingType="BATCH", integration="STREAMT", jobType="COMMAND", producer=PRODUCER
        )
        return RunEvent(
            eventType=RunState(state),
            eventTime=event_time,
            run=Run(runId=self.run_id),
            job=Job(namespace=self.namespace, name=self.job_name, facets={"jobType": job_type}),
            producer=PRODUCER,
            inputs=[InputDataset(namespace=ns, name=name) for ns, name in self.inputs],
            outputs=[],
        )

    def _emit(self, state: str, event_time: str) -> None:
        try:
            self.transport.emit(self.event(state, event_time))
        except Exception as exc:  # delivery never changes the command's truth
            self._warn(f"OpenLineage {state} delivery failed ({type(exc).__name__})")

    def _warn(self, message: str) -> None:
        self.warnings.append(
            Diagnostic(
                Codes.W112_OPENLINEAGE_EMIT_FAILED,
                message + "; the command's result is unchanged.",
                "Check the transport in OPENLINEAGE_CONFIG (receiver reachable, file writable).",
                details={"run_id": self.run_id},
            )
        )
