"""Local, Docker-free infrastructure for streamt's tests, demos and users.

Driven by ``tests/infra/devstack.py`` (``./dev stack up|down|status|logs``).
Stdlib only: it must run before any project virtualenv exists.
"""
