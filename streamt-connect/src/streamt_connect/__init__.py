"""Kafka Connect sink connectors for streamt."""

__version__ = "0.1.0"
