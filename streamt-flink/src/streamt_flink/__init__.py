"""Flink SQL jobs (SQL Gateway + REST) for streamt."""
