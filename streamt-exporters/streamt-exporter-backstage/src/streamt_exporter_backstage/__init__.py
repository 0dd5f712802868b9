"""Backstage Software Catalog exporter for streamt."""
