"""OCPI protocol core (credentials and sessions 2.2.1, locations 2.3.0). Sans-I/O: no sockets, no asyncio."""
