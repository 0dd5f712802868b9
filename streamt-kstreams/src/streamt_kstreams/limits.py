"""Bounds of ``runtime build --timeout``: shared by the command (cheap to import for ``--help``) and the build."""

MIN_TIMEOUT, MAX_TIMEOUT, DEFAULT_TIMEOUT = 30, 1800, 600
