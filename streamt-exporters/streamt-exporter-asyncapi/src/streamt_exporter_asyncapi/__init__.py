"""AsyncAPI 3 exporter for streamt."""
