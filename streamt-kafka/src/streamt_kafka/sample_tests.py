"""Sample tests (dsl.md §11): assertions over the most recent records of each tested topic.

One consumer without a group reads every tested topic once, with the largest ``sample_size``
of the tests on it (``sample_read``), bounded by ``SAMPLE_TIMEOUT_SECONDS``. Values are decoded
once, whichever tests share them (``sample_decode``); undecodable records fail the test as a
``decode`` result listing their offsets. Row assertions run in Python (``sample_assert``), SQL
ones in the run's one DuckDB connection (``sample_sql``), which gets a test's sample as a table
only when the test has a SQL assertion.
A test over a topic with no records skips its assertions: an empty sample proves nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from typing import Any

import attrs
from streamt.sdk import ERROR, FAILED, MAX_EXAMPLES, SKIPPED, AssertionResult, RunnerReport, StreamtError, TestCase

from streamt_kafka.observers import _classified, kafka_settings, registry_client
from streamt_kafka.sample_assert import ROW_ASSERTIONS, Row, example
from streamt_kafka.sample_decode import Decoded, Decoder
from streamt_kafka.sample_read import TopicSample, read_recent, share
from streamt_kafka.sample_sql import SampleEngine, SampleTableError, evaluate

SAMPLE_TIMEOUT_SECONDS = 20.0
SQL_KINDS = ("custom_sql", "expression")


@attrs.define
class SampleTestRunner:
    runtime: Any
    timeout_seconds: float = SAMPLE_TIMEOUT_SECONDS
    type = "sample"

    def run(self, cases: Sequence[TestCase]) -> Mapping[str, RunnerReport]:
        budgets: dict[str, int] = {}
        for case in cases:
            budgets[case.target.topic] = max(budgets.get(case.target.topic, 0), case.sample_size)
        settings = kafka_settings(self.runtime)
        samples = _classified("read sample records", read_recent, settings, budgets, self.timeout_seconds)
        decoder = Decoder(self._schema_lookup())
        # Each record is decoded once, whichever tests share it; a topic's decoded records are let go
        # after its last test, so the run holds the decoded rows of one topic at a time, not of all.
        decoded: dict[str, dict[tuple[int, int], Decoded]] = {}
        tests_left = Counter(case.target.topic for case in cases)
        engine = SampleEngine()
        reports: dict[str, RunnerReport] = {}
        try:
            for case in sorted(cases, key=lambda c: c.target.topic):
                sample = samples[case.target.topic]
                known = decoded.setdefault(sample.topic, {})
                tests_left[sample.topic] -= 1
                if not tests_left[sample.topic]:
                    del decoded[sample.topic]
                # The topic was read once for its largest sample_size; each test takes its own recent share.
                records = most_recent(list(sample.records), case.sample_size)
                try:
                    results = [_decoded(decoder, known, r) for r in records]
                except StreamtError as exc:  # the registry failed: this test cannot be evaluated
                    reports[case.name] = RunnerReport(error=exc.diagnostics[0])
                    continue
                reports[case.name] = _evaluate(case, sample, records, results, engine)
        finally:
            engine.close()
        return reports

    def _schema_lookup(self) -> Any:
        registry = self.runtime.schema_registry

        def lookup(schema_id: int) -> tuple[str, str] | None:
            if registry is None:
                raise LookupError(f"record framed with schema id {schema_id}, but runtime.schema_registry is not set")
            return registry_client(self.runtime).schema_by_id(schema_id)

        return lookup


def most_recent(records: list[Any], size: int) -> list[Any]:
    """The ``size`` most recent of ``records`` (ordered by partition, offset), shared across partitions."""
    if len(records) <= size:
        return records
    by_partition: dict[int, list[Any]] = {}
    for record in records:
        by_partition.setdefault(record.partition, []).append(record)
    counts = share(size, {p: len(v) for p, v in by_partition.items()})
    return [r for p, v in sorted(by_partition.items()) for r in v[len(v) - counts[p] :]]


def _decoded(decoder: Decoder, done: dict[tuple[int, int], Decoded], record: Any) -> Decoded:
    position = (record.partition, record.offset)
    if position not in done:
        done[position] = decoder.decode(record.value)
    return done[position]


def _evaluate(
    case: TestCase, sample: TopicSample, records: list[Any], decoded: list[Decoded], engine: SampleEngine
) -> RunnerReport:
    details: dict[str, Any] = {"topic": sample.topic, "partitions": sample.partitions, "complete": sample.complete}
    if not sample.exists:
        reason = f"topic {sample.topic} does not exist"
        return RunnerReport(
            assertions=tuple(AssertionResult(a.index, a.kind, a.label, ERROR, reason=reason) for a in case.assertions),
            messages=0,
            details=details,
        )
    rows: list[Row] = []
    bad: list[tuple[Any, str]] = []
    for record, result in zip(records, decoded, strict=True):
        if result.row is None:
            bad.append((record, result.problem or "undecodable"))
        else:
            rows.append(Row(record.partition, record.offset, record.key, result.row))
    results: list[AssertionResult] = [_decode_failure(case, bad, len(records))] if bad else []
    if not rows:
        if bad:
            status, reason = SKIPPED, "no record could be decoded"
        elif not sample.complete:  # records exist but none arrived in time: unknown, never "empty"
            status, reason = ERROR, f"no record arrived within the {SAMPLE_TIMEOUT_SECONDS:g} s sample read"
        else:
            status, reason = SKIPPED, "the topic has no records to sample"
        results += [AssertionResult(a.index, a.kind, a.label, status, reason=reason) for a in case.assertions]
        return RunnerReport(assertions=tuple(results), messages=len(records), details=details)
    with ExitStack() as held:
        con = None  # the sample's table, made at the first SQL assertion: row assertions need none
        for assertion in case.assertions:
            if assertion.kind not in SQL_KINDS:
                results.append(ROW_ASSERTIONS[assertion.kind](assertion, rows, case.target))
                continue
            try:
                con = con or held.enter_context(engine.table(rows))
            except SampleTableError as exc:  # the row assertions still run
                results.append(
                    AssertionResult(assertion.index, assertion.kind, assertion.label, ERROR, reason=str(exc))
                )
                continue
            results.append(evaluate(con, assertion, rows, case.target))
    if not sample.complete:
        details["reason"] = "the read hit its time bound; counts cover the records read"
    return RunnerReport(assertions=tuple(results), messages=len(records), details=details)


def _decode_failure(case: TestCase, bad: list[tuple[Any, str]], read: int) -> AssertionResult:
    examples = []
    for record, problem in bad[:MAX_EXAMPLES]:
        row = Row(record.partition, record.offset, record.key, {})
        examples.append({**example(row, case.target), "problem": problem})
    return AssertionResult(-1, "decode", "decode", FAILED, checked=read, failed=len(bad), examples=tuple(examples))
