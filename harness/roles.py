"""The roles a SUT (and so the harness's side) plays: one enum for every protocol.

A role is its own lower-case name ("csms", "cs", "cpo", "emsp"), as on the command line (``--sut``), in
markers (``sut_roles``) and in test ids; OCPI writes a platform's role upper-case on the wire (``party``).
"""

from __future__ import annotations

from enum import StrEnum


class Role(StrEnum):
    CSMS = "csms"
    CS = "cs"
    CPO = "cpo"
    EMSP = "emsp"

    @property
    def spoken(self) -> str:
        """The role as a sentence names it ("the CSMS", "the station", "the CPO", "the eMSP")."""
        return {"csms": "the CSMS", "cs": "the station", "cpo": "the CPO", "emsp": "the eMSP"}[self.value]

    @property
    def party(self) -> str:
        """The OCPI role as the credentials module and the registry of modules write it ("CPO", "EMSP")."""
        return self.value.upper()


CSMS, CS, CPO, EMSP = Role.CSMS, Role.CS, Role.CPO, Role.EMSP
OCPP_ROLES = (CSMS, CS)
OCPI_ROLES = (CPO, EMSP)
