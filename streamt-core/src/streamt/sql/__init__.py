"""SQL analysis of rendered model SQL (sqlparse): projected and referenced columns, filter checks."""
