"""The self-check fault catalog of OCPP 2.0.1 and 2.1: deliberately faulty variants of the reference
implementations, one module per functional block.

Each fault is a small subclass of ``ReferenceCsms`` or ``ReferenceStation`` that overrides the
least code needed to break exactly ONE named rule, and a ``Fault`` record (``records.py``) saying
which suite test(s) must catch it, with which verdict (*failed* for a MUST row, a passed test with a
*finding* naming the row for a SHOULD row: the SUT's fault, never *broken*) and which words of the
failure message show the intended reason. ``test_fault_catalog.py`` plays each selection with the
faulty class as the embedded SUT (``--embedded-sut catalog.<block>:<Class>``).

A fault goes in the module of the block whose rule it breaks (a transport rule, ``ws.``, ``rpc.``,
``CONN.``, in ``transport``, whichever use case catches it); each module ends with its ``FAULTS``. A new
module is found by name, not listed here.

Importability: ``tests/`` is no package, so this folder is the top-level package ``catalog`` and the
runs that load it get tests/faults on ``PYTHONPATH``; the pytest run of this folder finds it through
its own ``conftest.py`` (see there).
"""

import importlib
import pkgutil

from .records import CONN, RPC, VERSION, Fault, embedded_sut, transport_test

# every module of this folder but records.py is a block's: a new one is found, not listed
BLOCKS = tuple(importlib.import_module(f"{__name__}.{module.name}") for module in pkgutil.iter_modules(__path__)
               if module.name != "records")
FAULTS: tuple[Fault, ...] = tuple(fault for block in BLOCKS for fault in block.FAULTS)

__all__ = ["BLOCKS", "CONN", "FAULTS", "RPC", "VERSION", "Fault", "embedded_sut", "transport_test"]
