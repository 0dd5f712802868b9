"""Kafka topics, Schema Registry subjects and source discovery for streamt."""
