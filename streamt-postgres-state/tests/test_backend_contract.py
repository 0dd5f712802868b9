"""The PostgreSQL backend keeps the state-backend contract (streamt_testing.contracts), against a real server."""

from __future__ import annotations

import pytest
from streamt.project import load_project
from streamt.state.selection import open_state_backend
from streamt_testing.contracts import StateBackendContract

pytestmark = pytest.mark.postgres


class TestPostgresStateBackend(StateBackendContract):
    @pytest.fixture
    def state_backend_factory(self, v2_project):
        # Each call opens a new backend object (its own connection), as a second process would.
        return lambda: open_state_backend(load_project(v2_project, None), v2_project, "write")
