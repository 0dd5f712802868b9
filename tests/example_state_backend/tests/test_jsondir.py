"""The jsondir backend keeps the state-backend contract, checked by streamt's own conformance kit."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamt_jsondir import JsonDirBackend
from streamt_testing.contracts import StateBackendContract


class TestJsonDirBackend(StateBackendContract):
    @pytest.fixture
    def state_backend_factory(self, tmp_path: Path):
        return lambda: JsonDirBackend(tmp_path / "state", "streamt-state://jsondir/shop/dev", lock_timeout_seconds=0.3)
