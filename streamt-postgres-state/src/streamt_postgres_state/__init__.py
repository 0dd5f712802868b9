"""PostgreSQL deployment-state backend for streamt."""
