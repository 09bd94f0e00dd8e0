"""Reference implementations: an OCPP CSMS and station for each version (and an OCPI peer). Each plays
the harness's side of a test, and each can stand in as the SUT for self-conformance runs.

The OCPP references are composed, per version, of functional blocks:

- ``base``: the version-neutral station and CSMS (connection, RPC link, dispatch of CALLs to
  ``on_<Action>`` methods, Heartbeat, identity and Basic auth, the actuator plumbing:
  ``perform`` / ``configure`` / ``supported_actions``, background tasks), and the hooks through
  which one block reacts to another (a transaction starts, a configuration key changes, ...);
- ``blocks/<block>.py``: one functional block each (provisioning, authorization, transactions,
  remote control, reset, configuration, security, data transfer, smart charging). A block class
  declares the versions it serves, the CALLs it answers, its actuator actions and its settings;
  where 1.6 and 2.x differ in messages the module holds sibling classes (``...2x``, ``...16``), never
  one version's class subclassing the other's;
- ``compose``: the registry of blocks and the four references, each the composition of the blocks
  that serve its version: ``ReferenceStation`` / ``ReferenceCsms`` (2.0.1, 2.1) and
  ``ReferenceStation16`` / ``ReferenceCsms16`` (1.6);
- ``model`` (the station's equipment the blocks share), ``tokens``, ``vendors`` and ``v16/``
  (configuration keys, transaction queue, energy register): the sans-I/O stores the blocks use.

Why mixins and not components: a block is a mixin class, and a reference is a class whose bases are
its blocks and its base. A fault of the self-check catalog (``tests/faults``) is then a direct
subclass of the reference that overrides one method, wherever the block that defines it lives, and
the blocks share the station's state (its EVSEs, its connection) as attributes of one object, as
the protocol's functional blocks share one station. Components would need a delegation layer for
both. The price of mixins, methods that reach across blocks, is kept visible: a block names the
blocks it calls (``requires``, checked when a reference is composed), reacts to others only through
the base's hooks, and no two blocks of a reference may answer one message or offer one action.
"""

from harness.reference.compose import (ReferenceCsms, ReferenceCsms16, ReferenceStation, ReferenceStation16,
                                      references_for)

__all__ = ["ReferenceCsms", "ReferenceCsms16", "ReferenceStation", "ReferenceStation16", "references_for"]
