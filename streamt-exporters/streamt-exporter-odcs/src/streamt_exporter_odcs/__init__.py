"""Open Data Contract Standard exporter for streamt."""

__version__ = "0.1.0"
