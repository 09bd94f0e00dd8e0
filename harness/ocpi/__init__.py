"""OCPI protocol core: envelope, headers, authentication, versions, pagination, credentials (2.2.1)
and locations (2.3.0), each with the table of its rules. Sans-I/O: no sockets, no asyncio."""
