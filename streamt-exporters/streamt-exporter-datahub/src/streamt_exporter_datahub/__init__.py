"""DataHub metadata-file exporter for streamt."""
