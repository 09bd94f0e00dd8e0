"""The 1.6-specific stores of the reference charge point, sans-I/O: its configuration keys
(``config``), its queue of transaction messages (``queue``) and its energy register (``meter``).
The 1.6 references themselves are composed in ``harness.reference.compose``."""
