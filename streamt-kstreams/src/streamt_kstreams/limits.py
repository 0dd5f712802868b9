"""Bounds of `runtime build --timeout` and of each runner wait, shared by commands (cheap to import)."""

MIN_TIMEOUT, MAX_TIMEOUT, DEFAULT_TIMEOUT = 30, 1800, 600

# Each runner wait (`apply --runner-timeout`, `state resume --timeout`, STREAMT_RUNNER_TIMEOUT): 0 < s <= 600.
MAX_RUNNER_WAIT, DEFAULT_RUNNER_WAIT = 600.0, 60.0
