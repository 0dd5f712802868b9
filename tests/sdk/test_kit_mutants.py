"""The mutation suite of the conformance kit: each known broken plugin is caught, its correct twin passes.

``kit_mutants.py`` holds the mutants (an exporter command that does not exist, an exporter printing
the resolved secret in its text document, a state backend whose ``verify_lock`` does nothing, one
whose ``status()`` shows a DSN with a password, an observer making one request per artifact, rules
with an unregistered code, no location, no suggestion or the Kafka password in the message). They
run in a pytest subprocess, so that a contract failing on a mutant is an observed failure here.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

MUTANTS = Path(__file__).with_name("kit_mutants.py")


def _classes() -> dict[str, tuple[str, ...] | None]:
    """``class name -> the tests that must fail`` (``None`` for a correct twin)."""
    spec = importlib.util.spec_from_file_location("kit_mutants", MUTANTS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {name: getattr(cls, "CAUGHT_BY", None) for name, cls in vars(module).items() if name.startswith("Test")}


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """``Class::test -> passed | failed | skipped`` for every test the mutant file runs."""
    directory = tmp_path_factory.mktemp("kit-mutants")
    shutil.copy(MUTANTS, directory / "test_kit_mutants_run.py")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STREAMT_LOAD", "STREAMT_DISABLED", "PYTEST_"))}
    # The provider classes are only about batched reads: their trio serves nothing else.
    only_batched = "not ((CorrectObserver or MutantObserver) and not observing_many)"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA", "-k", only_batched, directory],
        capture_output=True,
        text=True,
        env=env,
        cwd=directory,
        check=False,
        timeout=600,
    )
    results = {}
    for line in done.stdout.splitlines():
        match = re.match(r"^(PASSED|FAILED|SKIPPED|ERROR) \S*::(Test\w+)::(test_\w+)", line)
        if match:
            results[f"{match.group(2)}::{match.group(3)}"] = match.group(1).lower()
    assert results, done.stdout + done.stderr
    return results


CLASSES = _classes()


def test_every_mutant_names_what_catches_it() -> None:
    mutants = [name for name in CLASSES if name.startswith("TestMutant")]
    assert len(mutants) >= 9 and all(CLASSES[name] for name in mutants)


@pytest.mark.parametrize("name", [n for n, caught in CLASSES.items() if caught], ids=str)
def test_the_kit_fails_on_the_mutant(outcomes: dict[str, str], name: str) -> None:
    caught = CLASSES[name] or ()
    assert {test: outcomes.get(f"{name}::{test}") for test in caught} == dict.fromkeys(caught, "failed")


@pytest.mark.parametrize("name", [n for n, caught in CLASSES.items() if not caught], ids=str)
def test_the_kit_passes_the_correct_twin(outcomes: dict[str, str], name: str) -> None:
    ran = {test: result for test, result in outcomes.items() if test.startswith(f"{name}::")}
    assert ran and not [test for test, result in ran.items() if result in ("failed", "error")], ran
