"""Repository-wide pytest configuration.

The local-infrastructure fixtures live in tests/infra/ (see its README); they
are loaded here so that every distribution's integration tests can use them.

The YAML parse cache (streamt.project.parse_cache) of every run in the session,
in process or in a child that inherits the environment, goes to one temporary
directory, never to the developer's ~/.cache; tests of the cache itself point
it at their own tmp_path.
"""

import atexit
import os
import shutil
import sys
import tempfile

_PARSE_CACHE = tempfile.mkdtemp(prefix="streamt-test-parse-cache-")
os.environ["STREAMT_CACHE_DIR"] = _PARSE_CACHE
os.environ.pop("STREAMT_NO_CACHE", None)
atexit.register(shutil.rmtree, _PARSE_CACHE, ignore_errors=True)


def pytest_unconfigure(config):
    # Every pytest-xdist worker imports this file and makes its own directory, but a worker leaves
    # through os._exit, past atexit: the session's end removes it.
    shutil.rmtree(_PARSE_CACHE, ignore_errors=True)


_INFRA = os.path.join(os.path.dirname(__file__), "tests", "infra")
if os.path.exists(os.path.join(_INFRA, "streamt_stack_fixtures.py")):
    sys.path.insert(0, _INFRA)
    pytest_plugins = ["streamt_stack_fixtures", "streamt_test_durations"]
