"""Batches bounded by length and by what their actions cost the provider (real local state files)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from streamt.apply.executor import execute
from streamt.apply.outcome import DONE, Outcome
from streamt.artifacts import Artifact
from streamt.plan.model import CREATE, Action, Observation, Plan
from streamt.state.local import LocalStateBackend


def _topic(i: int, partitions: int) -> Artifact:
    return Artifact("topic", f"t{i}", f"t{i}", {"partitions": partitions})


class Journaled(LocalStateBackend):
    """The local backend, logging each durable progress write next to the deployer's calls."""

    log: list[tuple[str, list[int]]]

    def record_progress_many(self, control: Any, indexes: Any, outcome: str, **kwargs: Any) -> Any:
        self.log.append((outcome, list(indexes)))
        return super().record_progress_many(control, indexes, outcome, **kwargs)


class Recording:
    """Creates everything it is given and remembers each batch (identities) it was called with."""

    kinds = ("topic",)

    def __init__(self, max_batch: int, max_batch_cost: int | None = None) -> None:
        self.max_batch = max_batch
        if max_batch_cost is not None:
            self.max_batch_cost = max_batch_cost
        self.batches: list[list[str]] = []

    def batch_cost(self, action: Action, artifact: Artifact) -> int:
        return int(artifact.spec["partitions"])

    def apply(self, action: str, pairs: list[Any]) -> dict[str, Outcome]:
        self.batches.append([artifact.identity for _, artifact in pairs])
        return {artifact.identity: Outcome(DONE) for _, artifact in pairs}

    def rollback(self, action: Action, artifact: Artifact) -> bool:
        return False


def _run(tmp_path: Path, deployer: Recording, partitions: list[int]) -> list[list[str]]:
    artifacts = [_topic(i, p) for i, p in enumerate(partitions)]
    actions = tuple(Action.for_artifact(CREATE, a, "", Observation("absent")) for a in artifacts)
    plan = Plan("p", "dev", False, "sha256:m", "sha256:e", actions)
    backend = Journaled(project_dir=tmp_path, project="p", env="dev")
    backend.log = []
    with backend.operation_lock():
        execute(plan, {(a.kind, a.identity): a for a in artifacts}, {"topic": deployer}, backend)
    # Durable progress around every batch: its actions started before the call, done after it.
    indexes = [[int(name[1:]) for name in batch] for batch in deployer.batches]
    assert backend.log == [entry for batch in indexes for entry in (("started", batch), ("done", batch))]
    return deployer.batches


def test_without_a_cost_bound_batches_are_cut_by_length(tmp_path: Path) -> None:
    assert _run(tmp_path, Recording(max_batch=2), [5, 5, 5]) == [["t0", "t1"], ["t2"]]


def test_a_cost_bound_cuts_a_batch_before_it_would_be_exceeded(tmp_path: Path) -> None:
    batches = _run(tmp_path, Recording(max_batch=100, max_batch_cost=10), [4, 4, 2, 3, 10, 1])
    # 4+4+2 = 10 fits; 3 starts a new batch; 3+10 would exceed; 10+1 would exceed.
    assert batches == [["t0", "t1", "t2"], ["t3"], ["t4"], ["t5"]]


def test_an_action_costing_more_than_the_bound_still_runs_alone(tmp_path: Path) -> None:
    assert _run(tmp_path, Recording(max_batch=100, max_batch_cost=3), [1, 7, 1]) == [["t0"], ["t1"], ["t2"]]
