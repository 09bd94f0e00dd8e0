"""The functional modules the reference peer plays, per (module, role): a handler and its store.

Adding a module (tariffs, tokens, CDRs) is its core in ``harness/ocpi/`` (rules, store),
its handlers in a module beside this one, and one ``Module`` line here per role it is played in;
the peer, its routing and its version details are not edited.
"""

from harness.ocpi.cdrs import CdrStore
from harness.ocpi.locations import LocationStore
from harness.ocpi.sessions import SessionStore
from harness.ocpi.tariffs import TariffStore
from harness.ocpi.tokens import TokenStore
from harness.reference.ocpi.cdrs import CdrsReceiver, CdrsSender
from harness.reference.ocpi.commands import CommandsReceiver, CommandsSender, CommandStore
from harness.reference.ocpi.handler import Module, ModuleRegistry
from harness.reference.ocpi.chargingprofiles import (
    ChargingProfilesReceiver, ChargingProfilesSender, ChargingProfileStore)
from harness.reference.ocpi.locations import LocationsReceiver, LocationsSender
from harness.reference.ocpi.sessions import SessionsReceiver, SessionsSender
from harness.reference.ocpi.tariffs import TariffsReceiver, TariffsSender
from harness.reference.ocpi.tokens import TokensReceiver, TokensSender

MODULES = ModuleRegistry([
    Module(LocationsSender, LocationStore),
    Module(LocationsReceiver, LocationStore),
    Module(SessionsSender, SessionStore),
    Module(SessionsReceiver, SessionStore),
    Module(TokensSender, TokenStore),
    Module(TokensReceiver, TokenStore),
    Module(CommandsReceiver, CommandStore),
    Module(CommandsSender, CommandStore),
    Module(ChargingProfilesReceiver, ChargingProfileStore),
    Module(ChargingProfilesSender, ChargingProfileStore),
    Module(CdrsSender, CdrStore),
    Module(CdrsReceiver, CdrStore),
    Module(TariffsSender, TariffStore),
    Module(TariffsReceiver, TariffStore),
])
