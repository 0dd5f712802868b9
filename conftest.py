"""Repository-wide pytest configuration.

The local-infrastructure fixtures live in tests/infra/ (see its README); they
are loaded here so that every distribution's integration tests can use them.
"""

import os
import sys

_INFRA = os.path.join(os.path.dirname(__file__), "tests", "infra")
if os.path.exists(os.path.join(_INFRA, "streamt_stack_fixtures.py")):
    sys.path.insert(0, _INFRA)
    pytest_plugins = ["streamt_stack_fixtures"]
