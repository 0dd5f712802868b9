"""pytest plugin: the devstack's endpoints as session fixtures, plus one marker per service.

Load it from the root conftest.py::

    sys.path.insert(0, "tests/infra")
    pytest_plugins = ["streamt_stack_fixtures"]

Behaviour
- Endpoints come from ``.stack/endpoints.json``. ``STREAMT_STACK_ENDPOINTS`` names another stack's file
  instead (e.g. a stack shared by several checkouts): that stack is used as it is, never started,
  stopped or written to, and a service it names must answer on its port.
- Otherwise, unless ``STREAMT_STACK_AUTOSTART=0``, the services the selected tests need are started
  (``devstack up --only ...``; idempotent, near-instant when already up).  Services started this
  way are stopped when the last concurrent test session ends, even after failures, unless
  ``STREAMT_STACK_KEEP=1``; services brought up by hand (``./dev stack up``) are left alone.
- A test needs a service if it carries the service's marker (``@pytest.mark.kafka``) or uses one
  of its fixtures (``kafka_bootstrap``...); the marker is then added automatically, so
  ``-m "not flink"`` deselects Flink tests.
- Every test that needs a service also gets the umbrella marker ``services`` (automatically, from the
  per-service markers and fixtures, and from the ``stack`` fixture): ``-m "not services"`` is every test
  that runs without the stack.
- Lanes: ``--fast-lane`` (``./dev test --fast``) deselects ``FAST_LANE_DESELECTS`` (services, Chromium,
  building and installing distributions) and FAILS a test that asks for a service anyway (e.g. through
  ``request.getfixturevalue``), so a test missing its marker cannot hide in the fast lane.
- pytest-xdist (``./dev test`` runs ``-n 2 --dist loadgroup``): tests that share a service resource that
  does not take concurrent tests well get one ``xdist_group`` (``XDIST_GROUPS``) and so run one after the
  other on one worker; every other test is spread over the workers.
- A missing service FAILS the test when ``CI=true``; elsewhere it skips with the reason.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest

try:
    from _pytest.nodeid import coerce_node_id  # pytest >= 9.2 (structured node ids)
except ImportError:  # older pytest: xdist's own suffix works
    coerce_node_id = None

sys.path.insert(0, str(Path(__file__).resolve().parent))
from streamt_devstack import config as _config

SERVICE_MARKERS = {
    "kafka": "needs the devstack Kafka broker (PLAINTEXT and SASL/PLAIN listeners)",
    "schema_registry": "needs the devstack Confluent-compatible schema registry (Apicurio ccompat)",
    "connect": "needs the devstack Kafka Connect worker",
    "flink": "needs the devstack Flink cluster and SQL Gateway",
    "postgres": "needs the devstack PostgreSQL (owner/writer/status roles)",
    "gateway": "needs the devstack Conduktor Gateway admin API stub",
    "docker": "needs the devstack Docker Engine (host networking only) and its Java 17 base image",
}

FIXTURE_SERVICE = {
    "kafka_bootstrap": "kafka",
    "kafka_sasl_bootstrap": "kafka",
    "kafka_sasl_credentials": "kafka",
    "schema_registry_url": "schema_registry",
    "connect_url": "connect",
    "flink_rest_url": "flink",
    "flink_sql_gateway_url": "flink",
    "postgres_dsn": "postgres",
    "postgres_writer_dsn": "postgres",
    "postgres_status_dsn": "postgres",
    "postgres_superuser_dsn": "postgres",
    "gateway_url": "gateway",
    "gateway_credentials": "gateway",
    "docker_host": "docker",
    "kstreams_base_image": "docker",
}

NOT_ADDRESSES = frozenset({"kstreams_base_image"})  # an image id, not somewhere to connect to

SERVICES_MARKER = "services"
# Fixtures that need the stack without naming one service (every endpoint).
STACK_FIXTURES = frozenset({"stack"})

# Markers of tests that need more than this checkout and a Python: the fast lane leaves them out.
HEAVY_MARKERS = {
    "browser": "drives Debian's Chromium (tests/infra/browser.py installs it with apt-get)",
    "packaging": "builds distributions and installs them into fresh virtual environments (slow)",
}
FAST_LANE_DESELECTS = (SERVICES_MARKER, *HEAVY_MARKERS)

# Services whose tests run one after another under pytest-xdist, and the group that serialises them.
# Flink's TaskManager has 4 slots, and one test's jobs may take several; every connector created or
# deleted rebalances Connect's single worker, which answers other tests' requests with 409 meanwhile;
# a Kafka Streams runner test builds an image and runs a JVM container, too heavy to double on 2 cores.
# Flink and Connect share a group because several journeys use both. PostgreSQL state tests get their
# own: the address lock is a server-wide advisory lock keyed by the state address alone, and the tests
# of one module share an address (their schemas differ), so two at once would wait on each other. The
# first service listed decides a test that needs several. Kafka, the registry and the Gateway stub take
# concurrent tests: every test uses its own topics, subjects and virtual clusters.
XDIST_GROUPS = {"docker": "docker", "flink": "flink-connect", "connect": "flink-connect", "postgres": "postgres"}
# Tests that build and install distributions without a service share one group too (see _AfterCollection).
PACKAGING_GROUP = "packaging"

SERVICE_KEYS = {
    "kafka": ("kafka_bootstrap", "kafka_sasl_bootstrap"),
    "schema_registry": ("schema_registry_url",),
    "connect": ("connect_url",),
    "flink": ("flink_rest_url", "flink_sql_gateway_url"),
    "postgres": ("postgres_dsn", "postgres_writer_dsn", "postgres_status_dsn"),
    "gateway": ("gateway_url",),
    "docker": ("docker_host", "kstreams_base_image"),
}


def _truthy(name: str, default: str = "") -> bool:
    return os.environ.get(name, default).strip().lower() in ("1", "true", "yes", "on")


def _endpoints_file() -> Path:
    return Path(os.environ.get("STREAMT_STACK_ENDPOINTS", _config.ENDPOINTS_FILE))


def _external() -> bool:
    """Whether the endpoints file belongs to a stack this checkout did not start."""
    return _endpoints_file().resolve() != _config.ENDPOINTS_FILE.resolve()


def _silent(value: str) -> str | None:
    """Why an endpoint (``host:port``, a URL or DSN, ``unix://path``) does not answer; ``None`` when it does."""
    if value.startswith("unix://"):
        address: str | tuple[str, int] = value[len("unix://") :]
        family = socket.AF_UNIX
    else:
        parts = urlsplit(value if "://" in value else f"tcp://{value}")
        address, family = (parts.hostname or "", parts.port or 0), socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.settimeout(2.0)
            probe.connect(address)
    except (OSError, ValueError) as e:
        # Only where it was reached: a DSN's user and password stay out of the message.
        where = address if isinstance(address, str) else f"{address[0]}:{address[1]}"
        return f"nothing answers at {where} ({e.__class__.__name__})"
    return None


def _unavailable_hint(autostart: bool) -> str:
    if _external():
        return " (named by STREAMT_STACK_ENDPOINTS: start that stack)"
    return "" if autostart else " (STREAMT_STACK_AUTOSTART=0; run `./dev stack up`)"


class StackManager:
    """Starts what the session needs once, remembers failures, stops what it started."""

    def __init__(self, needed: set[str], fast_lane: bool = False):
        self.needed = needed
        self.fast_lane = fast_lane
        self.autostart = os.environ.get("STREAMT_STACK_AUTOSTART", "1").strip() not in ("0", "false", "no")
        self.strict = _truthy("CI")
        self.leased = False
        self.errors: dict[str, str] = {}
        self._lock = threading.Lock()
        self._brought_up = False
        self.probed: set[str] = set()

    def endpoints(self) -> dict:
        try:
            return json.loads(_endpoints_file().read_text())
        except (OSError, ValueError):
            return {}

    def _ensure(self) -> None:
        with self._lock:
            if self._brought_up:
                return
            self._brought_up = True
            if not self.autostart or not self.needed or _external():
                return
            from streamt_devstack import stack  # imported late: only sessions that need it pay

            log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
            self.announce()
            try:
                stack.up(sorted(self.needed), log=log, autostart=True)
            except stack.StackError as e:
                text = str(e)
                for name in self.needed:
                    if f"[{name}]" in text or not stack.SERVICES[name].running():
                        self.errors[name] = text

    def announce(self) -> None:
        """Take this session's lease before any test runs when it will start services.

        Under pytest-xdist every worker is a session: a worker whose first service test comes late must
        already hold its lease when another worker finishes, or that one, seeing no other session, would
        stop the services it is about to use.
        """
        if self.leased or not self.autostart or not self.needed or _external():
            return
        from streamt_devstack import stack

        stack.acquire_lease()
        self.leased = True

    def require(self, service: str) -> dict:
        if self.fast_lane:
            pytest.fail(
                f"this test needs devstack service '{service}' but runs in the fast lane (--fast-lane): "
                f"use the service's fixture or marker (tests/infra/README.md) so that it runs with the stack",
                pytrace=False,
            )
        self._ensure()
        eps = self.endpoints()
        missing = [k for k in SERVICE_KEYS[service] if not eps.get(k)]
        if service not in self.errors and not missing and _external():
            self._probe(service, eps)
        if service in self.errors or missing:
            why = self.errors.get(service) or (
                f"no {', '.join(missing)} in {_endpoints_file()}{_unavailable_hint(self.autostart)}"
            )
            msg = f"devstack service '{service}' unavailable: {why}"
            if self.strict:
                pytest.fail(msg, pytrace=False)
            pytest.skip(msg)
        return eps

    def _probe(self, service: str, eps: dict) -> None:
        # Once per service: a named stack that stopped would otherwise fail test by test on timeouts.
        with self._lock:
            if service in self.probed:
                return
            self.probed.add(service)
            for key in SERVICE_KEYS[service]:
                if key in NOT_ADDRESSES:
                    continue
                why = _silent(eps[key])
                if why:
                    self.errors[service] = f"{key} in {_endpoints_file()} (STREAMT_STACK_ENDPOINTS): {why}"
                    return

    def teardown(self) -> None:
        # Services started by test sessions are stopped when the last concurrent session ends;
        # a stack brought up by hand (`./dev stack up`) is never stopped here.
        if not self.leased or _truthy("STREAMT_STACK_KEEP"):
            return
        from streamt_devstack import stack

        stack.release_lease(log=lambda m: print(m, file=sys.stderr))


_manager: StackManager | None = None


def pytest_addoption(parser):
    parser.addoption(
        "--fast-lane",
        action="store_true",
        default=False,
        help=f"run only tests without the markers {', '.join(FAST_LANE_DESELECTS)}; a test asking for a service fails",
    )


def pytest_configure(config):
    for name, help_text in SERVICE_MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {help_text}")
    config.addinivalue_line("markers", f"{SERVICES_MARKER}: needs one or more devstack services (added automatically)")
    for name, help_text in HEAVY_MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {help_text}")
    config.pluginmanager.register(_AfterCollection(config.getoption("--fast-lane")), "streamt-after-collection")


def xdist_group(services: set[str]) -> str | None:
    """The group of a test that needs ``services``: the first of ``XDIST_GROUPS`` it needs decides."""
    for service, group in XDIST_GROUPS.items():
        if service in services:
            return group
    return None


def in_fast_lane(item) -> bool:
    return not any(item.get_closest_marker(name) for name in FAST_LANE_DESELECTS)


class _AfterCollection:
    """What runs once every other hook added its markers (the conftests' included) and xdist named the groups."""

    def __init__(self, fast_lane: bool) -> None:
        self.fast_lane = fast_lane

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config, items):
        if self.fast_lane:
            deselected = [item for item in items if not in_fast_lane(item)]
            if deselected:
                config.hook.pytest_deselected(items=deselected)
                items[:] = [item for item in items if in_fast_lane(item)]
        if getattr(config.option, "loadgroup", False):  # an xdist worker under --dist loadgroup
            for item in items:
                if item.get_closest_marker("packaging") and not item.get_closest_marker("xdist_group"):
                    # Their session-scoped virtual environments and builds are made once, on one worker.
                    # (tests/packaging/conftest.py adds the marker in its own hook, so it is read here.)
                    item.add_marker(pytest.mark.xdist_group(PACKAGING_GROUP))
                mark = item.get_closest_marker("xdist_group")
                group = (mark.args[0] if mark.args else mark.kwargs.get("name", "default")) if mark else None
                if group and coerce_node_id and not item.nodeid.endswith(f"@{group}"):
                    # pytest 9.2 keeps node ids structured (Node._id); xdist 3.8 still writes the old
                    # Node._nodeid, so its "@group" suffix, the only thing the controller groups by, is
                    # lost (pytest-dev/pytest-xdist#1386). Until xdist writes it, this does.
                    item._id = coerce_node_id(f"{item.nodeid}@{group}")


# First: pytest-xdist's worker reads the xdist_group markers in its own (plain) hook, registered later.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    for item in items:
        services = {m.name for m in item.iter_markers() if m.name in SERVICE_MARKERS}
        fixtures = getattr(item, "fixturenames", ())
        for fx in fixtures:
            svc = FIXTURE_SERVICE.get(fx)
            if svc and svc not in services:
                item.add_marker(getattr(pytest.mark, svc))
                services.add(svc)
        if services or STACK_FIXTURES.intersection(fixtures):
            item.add_marker(getattr(pytest.mark, SERVICES_MARKER))
        group = xdist_group(services)
        if group and not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(group))


def pytest_collection_finish(session):
    # session.items is final here (-m and -k applied): only the services of the selected tests start.
    global _manager
    needed = {m.name for item in session.items for m in item.iter_markers() if m.name in SERVICE_MARKERS}
    _manager = StackManager(needed, fast_lane=session.config.getoption("--fast-lane"))
    if not session.config.option.collectonly:  # a session that runs nothing needs no lease
        _manager.announce()


def pytest_sessionfinish(session, exitstatus):
    # Runs after failures and interrupts too; the stack this session started must not leak.
    if _manager is not None:
        _manager.teardown()


def _mgr() -> StackManager:
    global _manager
    if _manager is None:  # plugin loaded after collection (unusual): start on demand
        _manager = StackManager(set(SERVICE_MARKERS))
    return _manager


def _add_deselected_needs(service: str) -> None:
    # A service asked for by fixture but not seen at collection (e.g. getfixturevalue).
    m = _mgr()
    if service not in m.needed:
        m.needed.add(service)
        if m._brought_up:
            m._brought_up = False


@pytest.fixture(autouse=True)
def _devstack_requirements(request):
    for marker in request.node.iter_markers():
        if marker.name in SERVICE_MARKERS:
            _mgr().require(marker.name)


@pytest.fixture(scope="session")
def stack() -> dict:
    """All endpoints (keys as in .stack/endpoints.json; ``None`` for a service not running)."""
    m = _mgr()
    m._ensure()
    eps = {k: None for k in _config.ENDPOINT_KEYS}
    eps.update(m.endpoints())
    return eps


def _endpoint(service: str, key: str) -> str:
    _add_deselected_needs(service)
    return _mgr().require(service)[key]


@pytest.fixture(scope="session")
def kafka_bootstrap() -> str:
    return _endpoint("kafka", "kafka_bootstrap")


@pytest.fixture(scope="session")
def kafka_sasl_bootstrap() -> str:
    return _endpoint("kafka", "kafka_sasl_bootstrap")


@pytest.fixture(scope="session")
def kafka_sasl_credentials() -> dict:
    """SASL/PLAIN users of the SASL listener: ``{"admin": "admin-secret", "alice": ...}``."""
    _endpoint("kafka", "kafka_sasl_bootstrap")
    return dict(_config.KAFKA_SASL_USERS)


@pytest.fixture(scope="session")
def schema_registry_url() -> str:
    return _endpoint("schema_registry", "schema_registry_url")


@pytest.fixture(scope="session")
def connect_url() -> str:
    return _endpoint("connect", "connect_url")


@pytest.fixture(scope="session")
def flink_rest_url() -> str:
    return _endpoint("flink", "flink_rest_url")


@pytest.fixture(scope="session")
def flink_sql_gateway_url() -> str:
    return _endpoint("flink", "flink_sql_gateway_url")


@pytest.fixture(scope="session")
def postgres_dsn() -> str:
    return _endpoint("postgres", "postgres_dsn")


@pytest.fixture(scope="session")
def postgres_writer_dsn() -> str:
    return _endpoint("postgres", "postgres_writer_dsn")


@pytest.fixture(scope="session")
def postgres_status_dsn() -> str:
    return _endpoint("postgres", "postgres_status_dsn")


@pytest.fixture(scope="session")
def postgres_superuser_dsn(postgres_dsn: str) -> str:
    """The devstack's ``postgres`` superuser over TCP (its fixed loopback-only password), database ``postgres``.

    Only for tests that create and drop their own databases and roles; the product never gets it.
    """
    from urllib.parse import urlsplit

    where = urlsplit(postgres_dsn)
    return f"postgresql://postgres:{_config.PG_SUPERUSER_PASSWORD}@{where.hostname}:{where.port}/postgres"


@pytest.fixture(scope="session")
def gateway_url() -> str:
    return _endpoint("gateway", "gateway_url")


@pytest.fixture(scope="session")
def gateway_credentials() -> tuple[str, str]:
    _endpoint("gateway", "gateway_url")
    return _config.GATEWAY_USER


@pytest.fixture(scope="session")
def docker_host() -> str:
    """``unix://...`` of the stack's Docker Engine (or the user's, via STREAMT_DEVSTACK_DOCKER_HOST)."""
    return _endpoint("docker", "docker_host")


@pytest.fixture(scope="session")
def kstreams_base_image() -> str:
    """``sha256:`` ID of the Java 17 base image the stack built from Debian packages."""
    return _endpoint("docker", "kstreams_base_image")
