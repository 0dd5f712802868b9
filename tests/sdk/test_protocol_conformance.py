"""mypy checks every provider class against the ``streamt.sdk`` Protocols it is used as.

The classes are the ones the installed plugins' hooks really return (an observer is checked against
``Observer``, a deployer against ``Deployer`` ...), plus every optional capability Protocol core asks
for with ``isinstance`` and that the object has at run time (``BatchingDeployer``, ``ExactAdoptionObserver``
...): having the attribute is not enough, its type must be the one core relies on. One generated module
per distribution holds ``def _check(x: Provider) -> Protocol: return x`` lines, and one mypy run
type-checks them all, beside a mutant that must fail (a ``list`` parameter where the Protocol says
``Sequence``), so the check is shown to be able to fail.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mypy import api as mypy_api
from streamt.plugins import get_plugins
from streamt.project import load_project
from streamt.sdk import protocols

REPO = Path(__file__).resolve().parents[2]

# hook -> the Protocol its items are used as, and whether it is called with the runtime.
HOOKS: dict[str, tuple[str, bool]] = {
    "streamt_observers": ("streamt.sdk.protocols.Observer", True),
    "streamt_planners": ("streamt.sdk.protocols.Planner", False),
    "streamt_deployers": ("streamt.sdk.protocols.Deployer", True),
    "streamt_runtime_readers": ("streamt.sdk.protocols.RuntimeReader", True),
    "streamt_source_discoverers": ("streamt.sdk.protocols.DiscoverySource", True),
    "streamt_test_runners": ("streamt.testrun.protocol.TestRunner", True),
}
# State backends are built by a factory from a project and a purpose (connecting to PostgreSQL for some):
# their classes are named here, and each registered backend must be one of them.
STATE_BACKENDS = {
    "local": "streamt.state.local.LocalStateBackend",
    "postgres": "streamt_postgres_state.backend.PostgresStateBackend",
}
CAPABILITIES = [
    getattr(protocols, name)
    for name in protocols.__all__
    if getattr(getattr(protocols, name), "_is_runtime_protocol", False)
]

MUTANT = """
from collections.abc import Mapping, Sequence

from streamt.sdk import Artifact, Observation
from streamt.sdk.protocols import Observer


class ListObserver:
    kinds = ("topic",)

    def observe(self, artifacts: list[Artifact]) -> Mapping[str, Observation]:
        return {}


def _check(x: ListObserver) -> Observer:
    return x
"""


def _path(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _provided() -> Iterator[tuple[str, str]]:
    """``(provider class, Protocol)`` pairs, as the hooks of the installed plugins return them."""
    runtime = load_project(str(REPO / "examples" / "quickstart"), None).runtime
    plugins = get_plugins()
    for hook, (protocol, with_runtime) in HOOKS.items():
        kwargs: dict[str, Any] = {"runtime": runtime} if with_runtime else {}
        for _plugin, batch in plugins.call_each(hook, **kwargs):
            for item in batch or ():
                yield _path(type(item)), protocol
                for capability in CAPABILITIES:
                    if isinstance(item, capability):
                        yield _path(type(item)), _path(capability)
    for _plugin, batch in plugins.call_each("streamt_state_backends"):
        for registration in batch or ():
            if registration.factory is not None:
                assert registration.name in STATE_BACKENDS, f"name the class of state backend {registration.name!r}"
    for backend in STATE_BACKENDS.values():
        yield backend, "streamt.sdk.protocols.StateBackend"
        yield backend, "streamt.sdk.protocols.ReceiptStateBackend"


def _module(pairs: list[tuple[str, str]]) -> str:
    lines = ["from __future__ import annotations", ""]
    lines += sorted({f"import {name.rsplit('.', 1)[0]}" for pair in pairs for name in pair})
    for index, (provider, protocol) in enumerate(pairs):
        lines += ["", "", f"def _check_{index}(x: {provider}) -> {protocol}:", "    return x"]
    return "\n".join(lines) + "\n"


def test_every_provider_class_satisfies_its_protocols(tmp_path: Path) -> None:
    pairs = sorted(set(_provided()))
    by_distribution: dict[str, list[tuple[str, str]]] = {}
    for provider, protocol in pairs:
        by_distribution.setdefault(provider.split(".", 1)[0], []).append((provider, protocol))
    # Every kind of provider object is seen (a hook that stopped returning anything would pass vacuously).
    assert {protocol.rsplit(".", 1)[1] for _, protocol in pairs} >= {
        "Observer",
        "Planner",
        "Deployer",
        "RuntimeReader",
        "DiscoverySource",
        "TestRunner",
        "StateBackend",
        "BatchingDeployer",
        "EvidenceDeployer",
        "AdoptionObserver",
    }
    assert len(by_distribution) >= 7, sorted(by_distribution)
    files = []
    for distribution, checks in sorted(by_distribution.items()):
        files.append(tmp_path / f"conformance_{distribution}.py")
        files[-1].write_text(_module(checks))
    mutant = tmp_path / "conformance_mutant.py"
    mutant.write_text(MUTANT)
    config = ["--config-file", str(REPO / "pyproject.toml"), "--no-error-summary", "--show-error-codes"]
    # mypy raises the interpreter's recursion limit for good; this worker's other tests need the default.
    limit = sys.getrecursionlimit()
    try:
        stdout, stderr, _status = mypy_api.run([*config, *map(str, files), str(mutant)])
    finally:
        sys.setrecursionlimit(limit)
    # By file name: mypy's cache may replay a module's errors under the directory of an earlier run.
    errors = [Path(line.split(":", 1)[0]).name for line in stdout.splitlines() if re.search(r": error: ", line)]
    assert not stderr, stderr
    assert mutant.name in errors, f"the mutant was not caught:\n{stdout}"
    failed = [e for e in errors if e != mutant.name]
    assert not failed, "provider classes that do not satisfy their Protocol:\n" + stdout
