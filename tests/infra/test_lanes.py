"""The two lanes: ``./dev test`` runs everything, ``./dev test --fast`` (``--fast-lane``) only what needs no service.

The audit runs over the tests of the session it is in: in the fast lane that is the fast lane itself, in
a full run every collected test. A synthetic suite in a real pytest process proves the plugin's side:
what the lane deselects, the markers and xdist groups it assigns, and that a test reaching for a service
without a marker fails in the fast lane instead of passing quietly.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import streamt_stack_fixtures as fixtures
from streamt_devstack.config import ENDPOINT_KEYS

INFRA = Path(__file__).resolve().parent
REPO = INFRA.parents[1]

# A test module that reads the stack's endpoints or drives the stack itself needs the stack, whatever
# its fixtures say (e.g. a helper reading .stack/endpoints.json, a subprocess running `./dev demo`).
# Also the variables `./dev stack env` exports (STREAMT_KAFKA_BOOTSTRAP, ...). Unit tests of the devstack's
# own modules (ids, mount tables) import them without reaching a service.
REACHES_THE_STACK = re.compile(
    r"endpoints\.json|ENDPOINTS_FILE|devstack\.py|streamt_devstack import stack\b|\./dev (?:demo|stack|test)\b|"
    + "|".join(rf"\bSTREAMT_{key.upper()}\b" for key in ENDPOINT_KEYS)
)
# Modules that name those only to test the plugin's own handling of them, with files of their own.
OFFLINE_USERS = {
    "tests/infra/test_stack_fixtures.py": "checks the endpoints-file contract and named stacks it writes itself",
    "tests/infra/test_lanes.py": "this audit",
    "streamt-kstreams/tests/test_runtime_build.py": "sets and unsets the base-image variables runtime build reads",
    "streamt-kstreams/tests/test_base_image_pull.py": "unsets the base-image variables; its engine test is marked",
}
SERVICE_FIXTURES = set(fixtures.FIXTURE_SERVICE) | set(fixtures.STACK_FIXTURES)


def _relative(item: pytest.Item) -> str:
    return Path(str(item.path)).resolve().relative_to(REPO).as_posix()


def test_every_test_that_needs_a_service_carries_the_services_marker(request: pytest.FixtureRequest) -> None:
    unmarked = []
    for item in request.session.items:
        uses = SERVICE_FIXTURES.intersection(getattr(item, "fixturenames", ()))
        services = {m.name for m in item.iter_markers() if m.name in fixtures.SERVICE_MARKERS}
        if (uses or services) and not item.get_closest_marker(fixtures.SERVICES_MARKER):
            unmarked.append(f"{item.nodeid} (uses {sorted(uses | services)})")
    assert unmarked == []


def test_no_test_in_the_fast_lane_needs_a_service_a_browser_or_a_build(request: pytest.FixtureRequest) -> None:
    fast = [item for item in request.session.items if fixtures.in_fast_lane(item)]
    wrong = []
    texts: dict[str, str] = {}
    for item in fast:
        uses = SERVICE_FIXTURES.intersection(getattr(item, "fixturenames", ()))
        markers = {m.name for m in item.iter_markers()} & (set(fixtures.SERVICE_MARKERS) | set(fixtures.HEAVY_MARKERS))
        if uses or markers:
            wrong.append(f"{item.nodeid}: {sorted(uses | markers)}")
        where = _relative(item)
        if where not in texts:
            texts[where] = Path(str(item.path)).read_text(encoding="utf-8")
        found = REACHES_THE_STACK.search(texts[where])
        if found and where not in OFFLINE_USERS:
            wrong.append(f"{item.nodeid}: its module names {found.group(0)!r} but the test has no service marker")
    assert wrong == []


SYNTHETIC = """
import pytest


def test_unit():
    pass


def test_by_fixture(kafka_bootstrap):
    pass


@pytest.mark.postgres
def test_by_marker():
    pass


def test_with_flink_and_connect(flink_rest_url, connect_url):
    pass


def test_with_docker_and_flink(docker_host, flink_rest_url):
    pass


def test_flink_alone(flink_sql_gateway_url):
    pass


@pytest.mark.connect
def test_connect_alone():
    pass


def test_whole_stack(stack):
    pass


@pytest.mark.browser
def test_in_chromium():
    pass


@pytest.mark.packaging
def test_builds_a_wheel():
    pass


def test_reaches_for_a_service_unmarked(request):
    request.getfixturevalue("kafka_bootstrap")
"""

REPORT_PLUGIN = """
def pytest_collection_finish(session):
    for item in session.items:
        markers = sorted({m.name for m in item.iter_markers()} - {"parametrize"})
        group = item.get_closest_marker("xdist_group")
        print("ITEM", item.name, ",".join(markers), group.args[0] if group else "-")
"""


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "test_synthetic.py").write_text(SYNTHETIC)
    (root / "report_items.py").write_text(REPORT_PLUGIN)
    env = {
        "PYTHONPATH": f"{INFRA}:{root}",
        "PATH": "/usr/bin:/bin",
        # Nothing may start: the endpoints file is one of the synthetic suite's own, empty.
        "STREAMT_STACK_ENDPOINTS": str(root / "no-stack.json"),
        "STREAMT_STACK_AUTOSTART": "0",
    }
    argv = [sys.executable, "-m", "pytest", "-p", "streamt_stack_fixtures", "-p", "report_items"]
    argv += ["-p", "no:cacheprovider", "-p", "no:hypothesispytest", "-rA", *args]
    return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, check=False)


def _items(output: str) -> dict[str, tuple[str, str]]:
    rows = [line.split(" ") for line in output.splitlines() if line.startswith("ITEM ")]
    return {name: (markers, group) for _, name, markers, group in rows}


def test_markers_and_xdist_groups_come_from_the_fixtures_and_markers_a_test_uses(tmp_path: Path) -> None:
    done = _run(tmp_path, "--collect-only", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    assert _items(done.stdout) == {
        "test_unit": ("", "-"),
        "test_by_fixture": ("kafka,services", "-"),
        "test_by_marker": ("postgres,services,xdist_group", "postgres"),
        "test_with_flink_and_connect": ("connect,flink,services,xdist_group", "flink-connect"),
        "test_with_docker_and_flink": ("docker,flink,services,xdist_group", "docker"),
        "test_flink_alone": ("flink,services,xdist_group", "flink-connect"),
        "test_connect_alone": ("connect,services,xdist_group", "flink-connect"),
        "test_whole_stack": ("services", "-"),
        "test_in_chromium": ("browser", "-"),
        "test_builds_a_wheel": ("packaging", "-"),  # grouped only under --dist loadgroup
        "test_reaches_for_a_service_unmarked": ("", "-"),
    }


def test_the_fast_lane_runs_only_service_free_tests_and_fails_one_that_reaches_for_a_service(
    tmp_path: Path,
) -> None:
    done = _run(tmp_path, "--fast-lane")
    assert sorted(_items(done.stdout)) == ["test_reaches_for_a_service_unmarked", "test_unit"]
    assert "PASSED test_synthetic.py::test_unit" in done.stdout
    assert "FAILED test_synthetic.py::test_reaches_for_a_service_unmarked" in done.stdout
    assert "needs devstack service 'kafka' but runs in the fast lane" in done.stdout
    assert "1 failed, 1 passed, 9 deselected" in done.stdout
    assert done.returncode == 1


def test_under_xdist_a_group_runs_on_one_worker(tmp_path: Path) -> None:
    # The services are missing here (tests skip): what matters is where each test ran and under which id.
    done = _run(tmp_path, "-n", "2", "--dist", "loadgroup", "-v", "-k", "not unmarked")
    ran = re.findall(r"^\[(gw\d)\] \[\s*\d+%\] \w+ test_synthetic\.py::(\w+)(@[\w-]+)?", done.stdout, re.M)
    where = {name: (worker, suffix) for worker, name, suffix in ran}
    assert len(where) == 10, done.stdout
    grouped = ("test_with_flink_and_connect", "test_flink_alone", "test_connect_alone")
    assert {where[name][1] for name in grouped} == {"@flink-connect"}  # the id the controller groups by
    assert len({where[name][0] for name in grouped}) == 1
    assert where["test_with_docker_and_flink"][1] == "@docker" and where["test_by_marker"][1] == "@postgres"
    assert where["test_unit"][1] == "" and where["test_by_fixture"][1] == ""  # Kafka tests spread freely
    assert where["test_builds_a_wheel"][1] == "@packaging"
