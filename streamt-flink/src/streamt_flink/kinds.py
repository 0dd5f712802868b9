"""The artifact kinds this plugin compiles; ``FLINK_JOB`` is the one rule of which models a Flink job runs."""

from __future__ import annotations

from streamt.sdk import KIND_FLINK_JOB, KIND_TEST_JOB, ArtifactKind

# A model materialized `flink`, and a `topic` model with SQL whose executor is `flink` (the default):
# dsl.md section 9.2, `<model>_processor`.
FLINK_JOB = ArtifactKind(
    name=KIND_FLINK_JOB,
    directory="flink",
    manifest_key="flink_jobs",
    rank=30,
    title="Flink Jobs",
    materializations=("flink",),
    executors=("flink",),
)
# Continuous tests run as `test_<test>` jobs next to the model jobs.
TEST_JOB = ArtifactKind(
    name=KIND_TEST_JOB,
    directory="flink",
    manifest_key="test_jobs",
    rank=70,
    title="Test Jobs",
    test_types=("continuous",),
)
KINDS = (FLINK_JOB, TEST_JOB)
