"""Open Data Contract Standard exporter for streamt."""
