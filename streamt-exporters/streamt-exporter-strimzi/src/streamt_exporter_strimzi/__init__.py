"""Strimzi KafkaTopic exporter for streamt."""
