"""Kafka Connect sink connectors for streamt."""
