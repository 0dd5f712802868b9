"""Broken plugins that the conformance kit must catch, each beside a correct twin that must pass.

Not collected here (no ``test_`` prefix): ``test_kit_mutants.py`` copies this file into a temporary
directory and runs it with pytest in a subprocess, then reads which tests failed. A class named
``TestMutant...`` must fail exactly the tests its ``CAUGHT_BY`` names; a ``TestCorrect...`` twin
must pass every test it runs, which proves the failures come from the mutation.
"""

from __future__ import annotations

import http.server
import json
import os
import threading
import types
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from streamt.sdk import (
    ABSENT,
    Artifact,
    Diagnostic,
    ErrorCode,
    Exporter,
    Observation,
    Result,
    hookimpl,
)
from streamt.state.local import LocalStateBackend
from streamt_testing import write_project
from streamt_testing.contracts import (
    ExporterContract,
    ProviderContract,
    StateBackendContract,
    ValidationRuleContract,
)

# -- exporters ---------------------------------------------------------------------------------


def _exporter_plugin(name: str, leaks: bool) -> types.ModuleType:
    @click.command(name)
    @click.option("--project-dir", default=".")
    def command(project_dir: str) -> Result:
        secret = os.environ.get("STREAMT_CONTRACT_SECRET", "") if leaks else "masked"
        return Result(f"export {name}", data={"project": Path(project_dir).name}, text=f"login: {secret}")

    module = types.ModuleType(f"kit_{name.replace('-', '_')}")
    module.streamt_exporters = hookimpl(  # type: ignore[attr-defined]
        lambda: [Exporter(name=name, group="export", description=name, command_factory=lambda: command)]
    )
    return module


class _ExporterFixture(ExporterContract):
    NAME = "kit-doc"
    LEAKS = False

    @pytest.fixture(autouse=True)
    def _plugin(self, streamt_plugin: Any) -> None:
        streamt_plugin(_exporter_plugin(self.NAME, self.LEAKS), isolated=True)

    @pytest.fixture
    def exporter_args(self) -> list[str]:
        return ["export", self.NAME]

    @pytest.fixture
    def output_option(self) -> None:
        return None


class TestCorrectExporter(_ExporterFixture):
    pass


class TestMutantExporterThatDoesNotExist(_ExporterFixture):
    CAUGHT_BY = ("test_the_same_project_exports_the_same_bytes", "test_no_secret_reaches_the_output")

    @pytest.fixture
    def exporter_args(self) -> list[str]:
        return ["export", "no-such-exporter"]


class TestMutantExporterPrintingTheSecretInText(_ExporterFixture):
    CAUGHT_BY = ("test_no_secret_reaches_the_output",)
    NAME = "kit-leaky"
    LEAKS = True


# -- state backends ----------------------------------------------------------------------------


class _NoopLock(LocalStateBackend):
    def verify_lock(self) -> None:
        return None


class _DsnStatus(LocalStateBackend):
    def status(self) -> dict[str, Any]:
        return {**super().status(), "database": "postgresql://state:hunter2@db.example/state"}


class _BackendFixture(StateBackendContract):
    BACKEND: type[LocalStateBackend] = LocalStateBackend

    @pytest.fixture
    def state_backend_factory(self, tmp_path: Path) -> Any:
        return lambda: self.BACKEND(project_dir=tmp_path, project="shop", env="dev", lock_timeout_seconds=0.3)


class TestCorrectBackend(_BackendFixture):
    pass


class TestMutantBackendWhoseVerifyLockDoesNothing(_BackendFixture):
    CAUGHT_BY = ("test_an_object_that_does_not_hold_the_lock_cannot_verify_it",)
    BACKEND = _NoopLock


class TestMutantBackendShowingADsnInStatus(_BackendFixture):
    CAUGHT_BY = ("test_status_is_free_of_secrets",)
    BACKEND = _DsnStatus


# -- providers: a tiny HTTP service on 127.0.0.1, read in one batch or one request per item ------


class _Items(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = json.dumps([] if self.path == "/items" else None).encode()
        self.send_response(200 if self.path == "/items" else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def items_url() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Items)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


class _ItemObserver:
    kinds = ("kit_item",)

    def __init__(self, url: str, batched: bool) -> None:
        self.url, self.batched = url, batched

    def observe(self, artifacts: list[Artifact]) -> dict[str, Observation]:
        if self.batched:
            with urllib.request.urlopen(f"{self.url}/items") as answer:
                live = set(json.load(answer))
            return {a.identity: Observation(ABSENT) for a in artifacts if a.identity not in live}
        out = {}
        for artifact in artifacts:
            try:
                urllib.request.urlopen(f"{self.url}/items/{artifact.identity}").close()
            except OSError:
                out[artifact.identity] = Observation(ABSENT)
        return out


class _Nobody:
    kinds = ("kit_item",)


class _ProviderFixture(ProviderContract):
    BATCHED = True

    @pytest.fixture
    def provider(self, items_url: str) -> Any:
        return _ItemObserver(items_url, self.BATCHED), _Nobody(), _Nobody()

    @pytest.fixture
    def desired(self) -> Artifact:
        return Artifact("kit_item", "one", "one", {"size": 1})


class TestCorrectObserver(_ProviderFixture):
    ONLY = "test_observing_many_artifacts_costs_what_observing_one_does"


class TestMutantObserverWithOneRequestPerArtifact(_ProviderFixture):
    ONLY = "test_observing_many_artifacts_costs_what_observing_one_does"
    CAUGHT_BY = (ONLY,)
    BATCHED = False


# -- validation rules --------------------------------------------------------------------------

KIT_CODE = ErrorCode("E961_KIT_OWNER_MISSING", "A model names no owner", "kit-rule")
UNDECLARED = ErrorCode("E962_KIT_UNDECLARED", "Never declared through streamt_error_codes", "kit-rule")
RULE_PROJECT = {
    "stream_project.yml": {
        "project": {"name": "shop"},
        "runtime": {"kafka": {"bootstrap_servers": "localhost:9092"}},
        "sources": [{"name": "orders_raw", "topic": "orders.raw"}],
        "models": [{"name": "orphan", "sql": "SELECT * FROM {{ source('orders_raw') }}"}],
    }
}


def _rule(
    code: ErrorCode = KIT_CODE,
    located: bool = True,
    suggests: bool = True,
    leaks: bool = False,
    first_line: bool = False,
) -> Any:
    def validate(project: Any) -> list[Diagnostic]:
        secret = f" (login {project.runtime.kafka.sasl_password})" if leaks else ""
        return [
            Diagnostic(
                code,
                f"Model '{model.name}' names no owner{secret}.",
                "Add `owner:` to the model." if suggests else None,
                ("stream_project.yml:1:1" if first_line else project.locations.get(("model", model.name)))
                if located
                else None,
            )
            for model in project.models
            if not model.owner
        ]

    module = types.ModuleType("kit_rule")
    module.streamt_error_codes = hookimpl(lambda: [KIT_CODE])  # type: ignore[attr-defined]
    module.streamt_validate = hookimpl(validate)  # type: ignore[attr-defined]
    return module


class _RuleFixture(ValidationRuleContract):
    RULE: tuple[tuple[str, Any], ...] = ()  # the mutation: keyword arguments of _rule

    @pytest.fixture
    def rule_plugin(self) -> Any:
        return _rule(**dict(self.RULE))

    @pytest.fixture
    def rule_project(self, tmp_path: Path) -> Path:
        return write_project(tmp_path / "rule-project", RULE_PROJECT)

    @pytest.fixture
    def rule_codes(self) -> list[str]:
        return [KIT_CODE.code, UNDECLARED.code]


class TestCorrectRule(_RuleFixture):
    pass


class TestMutantRuleWithAnUnregisteredCode(_RuleFixture):
    CAUGHT_BY = ("test_the_rule_reports_registered_codes",)
    RULE = (("code", UNDECLARED),)


class TestMutantRuleWithoutLocation(_RuleFixture):
    CAUGHT_BY = ("test_every_finding_points_at_the_declaration",)
    RULE = (("located", False),)


class TestMutantRuleWithoutSuggestion(_RuleFixture):
    CAUGHT_BY = ("test_every_finding_has_a_suggestion",)
    RULE = (("suggests", False),)


class TestMutantRuleShowingTheKafkaPassword(_RuleFixture):
    CAUGHT_BY = ("test_no_secret_reaches_the_output",)
    RULE = (("leaks", True),)


class TestMutantRuleLocatedAtTheFilesFirstLine(_RuleFixture):
    CAUGHT_BY = ("test_every_finding_points_at_the_declaration",)
    RULE = (("first_line", True),)
