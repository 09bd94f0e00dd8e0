"""The record of a fault, and the node ids of the suite tests that catch it."""

from __future__ import annotations

from dataclasses import dataclass

from harness.reference.base import CsmsBase

VERSION = "ocpp2.0.1"   # the faults are played in 2.0.1, in the role where the faulty side is the SUT


@dataclass(frozen=True)
class Fault:
    """One faulty stand-in and how the suites must catch it."""
    name: str
    rule: str                   # the id of the rule it breaks (a row of a RuleTable): its failure names it
    cls: type                   # a subclass of the reference for the SUT role it plays
    catch: tuple[str, ...]      # node ids (relative to the repository) that must fail
    reason: str                 # words of the failure message that show the intended reason
    verdict: str = "failed"     # "failed": a MUST row, the SUT is blamed; "finding": a SHOULD row, the test
                                # passes with a finding that names it; never "broken" (the harness's fault)
    known_miss: str = ""        # why the harness cannot catch it yet: its test is a strict xfail
    version: str = VERSION      # the version its tests are played in (the payment use cases are 2.1's)
    profile: str = ""           # a variant of the reference profile its tests need (a path in the repository,
                                # harness/profiles/...; their control run is tests/selfcheck/test_profile_variants.py)

    def outcome(self, result: dict) -> str:
        """What a test's conformance.json entry shows of this fault: its verdict, with the text that
        must name the rule (the failure's reason, or for a SHOULD row the findings)."""
        return result["reason"] if self.verdict == "failed" else "\n".join(result["findings"])

    def caught_by(self, result: dict) -> bool:
        """The entry shows the fault: the expected verdict, the rule id in brackets and the reason's words,
        the words read ignoring case: the ids they quote are case-insensitive, and a fault run plays under a
        seeded variance that spells them in either case (``evse-elsewhere`` for ``EVSE-ELSEWHERE``)."""
        shown = self.outcome(result)
        verdict = "failed" if self.verdict == "failed" else "passed"
        return result["verdict"] == verdict and f"[{self.rule}]" in shown and self.reason.casefold() in shown.casefold()

    @property
    def embedded_sut(self) -> str:
        return embedded_sut(self.cls)

    @property
    def role(self) -> str:
        return "csms" if issubclass(self.cls, CsmsBase) else "cs"


def embedded_sut(cls: type) -> str:
    """The ``--embedded-sut`` value of a stand-in: ``module:Class`` (``catalog.<block>:Class`` for a fault of
    this package), importable with tests/faults on the path."""
    return f"{cls.__module__}:{cls.__name__}"


def _node(path: str, test: str, *params: str, role: str) -> str:
    return f"suites/ocpp2/{path}::{test}[{'-'.join((role, VERSION, *params))}]"


def csms_test(path: str, test: str, *params: str) -> str:
    """A node of ``suites/ocpp2/<path>`` played with the SUT as the CSMS in ``VERSION``."""
    return _node(path, test, *params, role="csms")


def cs_test(path: str, test: str, *params: str) -> str:
    """A node of ``suites/ocpp2/<path>`` played with the SUT as the station in ``VERSION``."""
    return _node(path, test, *params, role="cs")


CONN, RPC = "test_CONN.py", "test_RPC.py"   # the OCPP-J transport suite, played in every version


def transport_test(file: str, test: str, role: str, version: str, *params: str) -> str:
    """A node of the transport suite (suites/ocpp/transport) played in ``version``."""
    return f"suites/ocpp/transport/{file}::{test}[{'-'.join((role, version, *params))}]"


V21 = "ocpp2.1"   # the version of the payment use cases


def csms21_test(path: str, test: str, *params: str) -> str:
    """A node played in 2.1 (its record says version=V21)."""
    return f"suites/ocpp2/{path}::{test}[{'-'.join(('csms', V21, *params))}]"


def cs21_test(path: str, test: str, *params: str) -> str:
    """A station's node played in 2.1."""
    return f"suites/ocpp2/{path}::{test}[{'-'.join(('cs', V21, *params))}]"
