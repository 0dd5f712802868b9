"""Kafka topics, Schema Registry subjects and source discovery for streamt."""

__version__ = "0.1.0"
