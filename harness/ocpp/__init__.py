"""OCPP-J protocol core, shared by 1.6, 2.0.1 and 2.1. Sans-I/O: no sockets, no asyncio."""
