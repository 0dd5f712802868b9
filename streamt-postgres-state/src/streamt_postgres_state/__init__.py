"""PostgreSQL deployment-state backend for streamt."""

__version__ = "0.1.0"
