"""Thin I/O adapters: they move text between sockets and the sans-I/O protocol cores."""
