"""Core's ``local`` backend keeps the state-backend contract (streamt_testing.contracts)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamt.state.local import LocalStateBackend
from streamt_testing.contracts import StateBackendContract


class TestLocalStateBackend(StateBackendContract):
    @pytest.fixture
    def state_backend_factory(self, tmp_path: Path):
        return lambda: LocalStateBackend(project_dir=tmp_path, project="shop", env="dev", lock_timeout_seconds=0.3)
