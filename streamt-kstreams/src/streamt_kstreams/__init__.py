"""Kafka Streams runner for streamt."""

__version__ = "0.1.0"
