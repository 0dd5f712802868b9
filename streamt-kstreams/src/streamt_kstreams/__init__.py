"""Kafka Streams runner for streamt."""
