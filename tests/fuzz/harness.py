"""One CLI run under the fuzz suite's contract, and the checks every run must pass.

The contract (issue 12): for any input, a command writes exactly one envelope of valid UTF-8
JSON to stdout, never answers ``E999_INTERNAL_ERROR``, returns an exit code that agrees with the
envelope's status, finishes within a time budget, and never shows a sentinel secret in its output or
in any file it writes.

``run_in_process`` is the cheap form (hypothesis makes hundreds of runs): a SIGALRM bounds the time.
``run_subprocess`` runs the installed console script with an address-space limit and a wall-clock
timeout, for the cases that need real process boundaries (bytes on stdout, memory).
"""

from __future__ import annotations

import io
import json
import os
import resource
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs

STREAMT = str(Path(sys.executable).with_name("streamt"))
# Every secret a fuzzed project holds is this text (or contains it); no output or file may show it.
SENTINEL = "fuzzSentinel9Q7"
ENVELOPE_KEYS = {"status", "command", "data", "errors", "warnings"}
MEMORY_LIMIT = 1536 * 1024 * 1024


class Timeout(Exception):
    pass


@attrs.frozen
class Run:
    argv: tuple[str, ...]
    exit_code: int
    stdout: bytes
    stderr: bytes
    seconds_limit: float

    @property
    def envelope(self) -> dict[str, Any]:
        return json.loads(self.stdout.decode("utf-8"))

    @property
    def codes(self) -> list[str]:
        return [error["code"] for error in self.envelope["errors"]]


@contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    def expire(_signum: int, _frame: Any) -> None:
        raise Timeout(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_in_process(argv: Sequence[str], seconds: float = 20.0) -> Run:
    """``streamt -o json ARGV`` in this process; ``Timeout`` if it takes longer than ``seconds``."""
    from streamt.cli import run

    stdout, stderr = io.StringIO(), io.StringIO()
    with _alarm(seconds):
        exit_code = run(["-o", "json", *argv], stdout=stdout, stderr=stderr)
    # What a real stdout would receive: the text must encode as strict UTF-8.
    out = stdout.getvalue().encode("utf-8")
    return Run(tuple(argv), exit_code, out, stderr.getvalue().encode("utf-8", "backslashreplace"), seconds)


def _memory_limit(limit: int) -> Any:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply


def run_subprocess(
    argv: Sequence[str | bytes],
    seconds: float = 60.0,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    memory: int = MEMORY_LIMIT,
) -> Run:
    """The console script in a child process with at most ``memory`` bytes of address space; ``Timeout``
    after ``seconds``.

    ``env``: variables set for the child on top of this process' environment (``STREAMT_*`` ones dropped).
    """
    # The session's parse cache directory stays: without it the child would write to ~/.cache.
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("STREAMT_") or k == "STREAMT_CACHE_DIR"}
    env = {**inherited, **(env or {})}
    try:
        done = subprocess.run(
            [STREAMT, "-o", "json", *argv],
            capture_output=True,
            timeout=seconds,
            env=env,
            cwd=cwd,
            preexec_fn=_memory_limit(memory),
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise Timeout(f"no answer within {seconds} s") from None
    shown = tuple(a.decode("utf-8", "backslashreplace") if isinstance(a, bytes) else a for a in argv)
    return Run(shown, done.returncode, done.stdout, done.stderr, seconds)


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def check_contract(result: Run, written: Path | None = None) -> dict[str, Any]:
    """Assert the contract for one run and return its envelope.

    ``written``: a directory whose files (everything the run may have written) must not hold the
    sentinel secret either.
    """
    where = " ".join(result.argv)
    try:
        text = result.stdout.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AssertionError(f"{where}: stdout is not valid UTF-8 ({exc})") from None
    try:
        envelope = json.loads(text, parse_constant=_not_json)
    except (json.JSONDecodeError, ValueError) as exc:
        raise AssertionError(f"{where}: stdout is not exactly one JSON document ({exc}):\n{text[:2000]}") from None
    assert isinstance(envelope, dict) and set(envelope) == ENVELOPE_KEYS, f"{where}: not an envelope: {text[:500]}"
    codes = [error["code"] for error in envelope["errors"]]
    assert "E999_INTERNAL_ERROR" not in codes, f"{where}: internal error: {envelope['errors']}"
    assert (result.exit_code == 0) == (envelope["status"] == "ok"), (
        f"{where}: exit code {result.exit_code} disagrees with status {envelope['status']}"
    )
    assert SENTINEL not in text, f"{where}: the sentinel secret is on stdout"
    assert SENTINEL.encode() not in result.stderr, f"{where}: the sentinel secret is on stderr"
    if written is not None:
        for path in sorted(written.rglob("*")):
            if path.is_file() and not path.is_symlink() and not path.name.endswith((".yml", ".yaml", ".env")):
                assert SENTINEL.encode() not in path.read_bytes(), f"{where}: the sentinel secret is in {path}"
    _check_parse_cache(where)
    return envelope


# Entries are named by their content's key, so each needs reading once per session.
_CACHE_ENTRIES_READ: set[str] = set()


def _check_parse_cache(where: str) -> None:
    """The run may also have written YAML parse cache entries (the session's directory): no sentinel there."""
    root = os.environ.get("STREAMT_CACHE_DIR")
    if not root:
        return
    for path in Path(root).rglob("*.json"):
        if path.name in _CACHE_ENTRIES_READ:
            continue
        _CACHE_ENTRIES_READ.add(path.name)
        try:
            data = path.read_bytes()
        except FileNotFoundError:  # pruned since listed
            continue
        assert SENTINEL.encode() not in data, f"{where}: the sentinel secret is in the parse cache entry {path}"
