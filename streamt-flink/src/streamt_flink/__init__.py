"""Flink SQL jobs (SQL Gateway + REST) for streamt."""

__version__ = "0.1.0"
