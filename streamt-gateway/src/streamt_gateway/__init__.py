"""Conduktor Gateway virtual topics for streamt."""

__version__ = "0.1.0"
