"""OpenLineage design metadata exporter for streamt."""
