"""Conduktor Gateway virtual topics for streamt."""
