"""Certification: the public test-case listings the suites' ids come from, which certification profile each
use case belongs to, and what a run plays of each profile (the plan) and how it fared (the readiness).

A vendor preparing for certification thinks in the certification tool's test-case ids and in the
certification profiles it claims (OCPP 2.0.1: Core, Local Auth List Management, Smart Charging, ...; OCPP 1.6:
Core and the optional feature profiles; OCPI: the modules it implements), not in our use-case files. The
tables below are data, each row with its source; ``python -m harness.certification`` writes
docs/certification-ids.md from the suites' ``checks(..., csms=TC(...))`` markers, so the table cannot drift
(tests/unit/test_certification.py checks that the file is what the script makes).
"""

from __future__ import annotations

import contextlib
import fnmatch
import io
import re
import sys
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# ---------------------------------------------------------------------------- the public listings
TZI = "https://github.com/tzi-app/tzi-OCTT"


@dataclass(frozen=True)
class Listing:
    """A public list of certification test cases: the ids it holds (a pattern; ``ids``, when given, the exact
    set) and where to read each case."""
    name: str
    pattern: str
    where: str                      # the address of a case, ``{id}`` / ``{path}`` filled in
    ids: frozenset[str] = frozenset()
    complete: bool = True           # ``ids`` is the whole listing (else: the cases read in it)

    def holds(self, tc: str) -> bool:
        return re.fullmatch(self.pattern, tc) is not None and (not self.ids or tc in self.ids)

    def address(self, tc: str) -> str:
        return self.where.format(id=tc, lower=tc.lower().replace("_", "-"), path=_tzi_path(tc))


def _tzi_path(tc: str) -> str:
    """tzi-OCTT's file of a CSMS case: 2.0.1/K/test_tc_k_30_csms.py, 1.6/test_tc_023_1_csms.py."""
    block = re.match(r"TC_([A-P])_", tc)
    return (f"2.0.1/{block.group(1)}/" if block else "1.6/") + f"test_{tc.lower()}.py"


def _ids(text: str, suffix: str) -> frozenset[str]:
    return frozenset(f"TC_{n}_{suffix}" for n in text.split())


# The CSMS cases of the open pytest clone of the certification tool, one file per case (read 2026-11): 2.0.1
# edition 4 per functional block, 1.6 from the tool's 2025-11 test case document.
TZI_201_CSMS = _ids(
    "A_01 A_02 A_03 A_04 A_06 A_07 A_08 A_09 A_10 A_11 A_12 A_13 A_14 A_19 "
    "B_01 B_02 B_06 B_07 B_08 B_09 B_10 B_12 B_13 B_14 B_18 B_20 B_21 B_22 B_25 B_26 B_27 B_30 B_31 B_42 B_44 "
    "B_58 C_02 C_06 C_07 C_08 C_20 C_37 C_38 C_39 C_40 C_43 C_47 C_48 C_49 C_50 C_51 C_52 "
    "D_01 D_02 D_03 D_04 D_08 D_09 E_01 E_02 E_03 E_04 E_07 E_08 E_09 E_10 E_11 E_12 E_14 E_15 E_16 E_17 E_19 "
    "E_20 E_21 E_22 E_26 E_29 E_30 E_31 E_33 E_34 E_38 E_39 E_53 F_01 F_02 F_03 F_04 F_06 F_11 F_12 F_13 F_14 "
    "F_15 F_18 F_20 F_23 F_24 F_27 G_03 G_04 G_05 G_06 G_07 G_08 G_11 G_14 G_17 G_20 H_01 H_07 H_08 H_14 H_15 "
    "H_17 H_19 H_20 H_22 I_01 I_02 J_01 J_02 J_03 J_04 J_07 J_08 J_09 J_10 J_11 K_01 K_02 K_03 K_04 K_05 K_06 "
    "K_08 K_10 K_15 K_19 K_29 K_30 K_31 K_32 K_33 K_34 K_35 K_36 K_37 K_43 K_44 K_48 K_50 K_51 K_52 K_53 K_55 "
    "K_57 K_58 K_59 K_60 K_70 L_01 L_02 L_03 L_04 L_05 L_06 L_07 L_08 L_09 L_10 L_11 L_13 L_17 L_19 L_20 L_21 "
    "L_22 L_23 L_24 M_01 M_02 M_03 M_04 M_05 M_12 M_13 M_14 M_15 M_16 M_17 M_18 M_19 M_20 M_21 M_24 M_26 M_28 "
    "N_01 N_02 N_03 N_05 N_08 N_09 N_16 N_17 N_18 N_21 N_24 N_25 N_27 N_28 N_29 N_30 N_31 N_32 N_34 N_35 N_36 "
    "N_44 N_46 N_47 N_48 N_49 N_50 N_60 N_62 N_63 O_01 O_02 O_03 O_04 O_05 O_06 O_07 O_08 O_09 O_10 O_11 O_12 "
    "O_13 O_14 O_17 O_18 O_19 O_25 O_26 O_27 O_28 P_02 P_03", "CSMS")
TZI_16_CSMS = _ids(
    "001 003 004_1 004_2 005_1 007 010 011_1 011_2 012 013 014 017_1 017_2 018_1 019_1 019_2 021 023_1 023_2 "
    "023_3 024 026 028 030 031 032_1 037_1 037_3 039 040_1 040_2 042_1 042_2 043_1 043_3 043_4 043_5 044_1 "
    "044_2 044_3 045_1 046 047 048_1 048_2 048_3 048_4 049 051 052 054 055 056 057 059 061 064 066 067 073 074 "
    "075_1 075_2 076 077 078 079 080 081 083 085 086 087 088", "CSMS")
# The charge point cases of the OCPP 1.6 test case document as EVtivity lists them (suffixes _1, _2 mark the
# variants of one case: TC_023_4_CS, TC_061_1_CS, ...; read 2026-11).
EVTIVITY_16_CS = _ids(
    "001 002 003 004_1 004_2 005_1 005_2 005_3 068 069 007_1 007_2 061_1 061_2 010 011_1 011_2 012 013 014 015 "
    "016 017_1 017_2 018_1 018_2 019 021 070 071 023_4 023_5 024 026 027 028 030 031 032_1 032_2 034 036 037_1 "
    "037_2 037_3 038 039 040_1 040_2 041 008_1 008_2 042_1 042_2 043_1 043_2 043_3 043 044_1 044_2 044_3 045_1 "
    "045_2 046_1 046_2 047 048_1 048_2 048_3 048_4 049 050_1 050_2 050_3 050_4 051 052 053_1 053_2 054 055 056 "
    "057 058_1 058_2 059 060 066 067 072 082 062 073 074 075_1 075_2 076 077 078 079 080 081 083 084 085 086 087",
    "CS")
# The 2.0.1 charging station cases labelled here, each read on its ocpplab.com page (OCPP 2.0.1 part 6, test
# cases, 2023-06-30).
OCPPLAB_201_CS = _ids("A_04 A_06 A_07 C_04 C_05 C_07 C_09 C_10 C_11 C_13 C_15 C_16 C_26 C_33 C_36 C_37 C_38 C_39 "
                        "C_41 C_45 C_47 C_48 C_49 C_56 C_57 E_04 E_26 E_50 E_51 F_06 F_10 J_01 P_01", "CS")

LISTINGS = (
    Listing("tzi-OCTT 2.0.1 CSMS", r"TC_[A-P]_\d\d_CSMS", TZI + "/blob/main/{path}", TZI_201_CSMS),
    Listing("tzi-OCTT 1.6 CSMS", r"TC_\d{3}(_\d)?_CSMS", TZI + "/blob/main/{path}", TZI_16_CSMS),
    Listing("EVtivity 1.6 charge point list", r"TC_\d{3}(_\d)?_CS",
            "https://www.evtivity.com/docs/conformance/charging-station-ocpp16", EVTIVITY_16_CS),
    Listing("ocpplab.com 2.0.1 test cases", r"TC_[A-P]_\d\d_CS",
            "https://www.ocpplab.com/docs/protocols/ocpp-2-0-1/test-cases/{lower}", OCPPLAB_201_CS, complete=False),
)


def listing_of(tc: str) -> Listing | None:
    return next((listing for listing in LISTINGS if listing.holds(tc)), None)


# ---------------------------------------------------------------------------- certification profiles
@dataclass(frozen=True)
class CertificationProfile:
    family: str        # "OCPP 2.x", "OCPP 1.6", "OCPI 2.2.1"
    name: str
    source: str

    @property
    def title(self) -> str:
        return f"{self.family} · {self.name}"


_OCA_201 = ("OCA certification program, OCPP 2.0.1 certification profiles (OCPP 2.0.1 part 0: Core = the blocks "
            "provisioning, authorization, transactions, remote control, availability)")
_SPEC_16 = "spec 002 What the service does 2: features are grouped in feature profiles; Core is required"
_OCPI = ("spec 000 What the service does 2-4: a module per identifier, credentials required in every "
         "implementation, sessions and locations functional; transport: what every module's requests share")

PROFILES = {p.title: p for p in (
    CertificationProfile("OCPP 2.x", "Core", _OCA_201),
    CertificationProfile("OCPP 2.x", "Advanced Security", _OCA_201 + "; security profile 3, client certificates"),
    CertificationProfile("OCPP 2.x", "Local Auth List Management", _OCA_201 + "; functional block D"),
    CertificationProfile("OCPP 2.x", "Smart Charging", _OCA_201 + "; functional block K"),
    CertificationProfile("OCPP 2.x", "ISO 15118", _OCA_201 + "; Plug and Charge, high-level communication"),
    CertificationProfile("OCPP 2.x", "Advanced User Interface", _OCA_201 + "; functional block O, display messages"),
    CertificationProfile("OCPP 2.x", "Payment (2.1)", "OCPP 2.1 C17-C25: no public certification profile yet"),
    CertificationProfile("OCPP 1.6", "Core", _SPEC_16),
    CertificationProfile("OCPP 1.6", "Firmware Management", _SPEC_16),
    CertificationProfile("OCPP 1.6", "Local Auth List Management", _SPEC_16),
    CertificationProfile("OCPP 1.6", "Reservation", _SPEC_16),
    CertificationProfile("OCPP 1.6", "Smart Charging", _SPEC_16),
    CertificationProfile("OCPP 1.6", "Remote Trigger", _SPEC_16),
    CertificationProfile("OCPP 1.6", "Security", "OCA white paper 'Improved security for OCPP 1.6-J'"),
    CertificationProfile("OCPI 2.2.1", "chargingprofiles", _OCPI),
    CertificationProfile("OCPI 2.2.1", "commands", _OCPI),
    CertificationProfile("OCPI 2.2.1", "credentials", _OCPI),
    CertificationProfile("OCPI 2.2.1", "locations", _OCPI),
    CertificationProfile("OCPI 2.2.1", "sessions", _OCPI),
    CertificationProfile("OCPI 2.2.1", "tariffs", _OCPI),
    CertificationProfile("OCPI 2.2.1", "tokens", _OCPI),
    CertificationProfile("OCPI 2.2.1", "transport", _OCPI),
    CertificationProfile("OCPI 2.2.1", "cdrs", _OCPI),
)}

# use case (or a glob of them) → certification profile name, per family; the first match wins
BY_USECASE: dict[str, tuple[tuple[str, str], ...]] = {
    "OCPP 2.x": (
        ("C07", "ISO 15118"), ("C08", "ISO 15118"), ("K1[567]", "ISO 15118"),
        ("C1[345]", "Local Auth List Management"),
        ("C1[7-9]", "Payment (2.1)"), ("C2?", "Payment (2.1)"),
        ("K*", "Smart Charging"),
        ("SP3", "Advanced Security"),
        ("O0?", "Advanced User Interface"),
        ("*", "Core"),     # C01-C06, C09-C12, C16, F, P, the connection, framing and security profiles 1-2
    ),
    "OCPP 1.6": (
        ("SP[23]", "Security"),
        ("CONN", "Core"), ("RPC", "Core"),
    ),
    "OCPI 2.2.1": (
        ("OCPI_CREDENTIALS", "credentials"), ("OCPI_LOCATIONS_*", "locations"),
        ("OCPI_SESSIONS_*", "sessions"), ("OCPI_CHARGING_PREFERENCES", "sessions"), ("OCPI_TOKENS_*", "tokens"),
        ("OCPI_COMMANDS", "commands"), ("OCPI_CHARGINGPROFILES*", "chargingprofiles"),
        ("OCPI_CDRS_*", "cdrs"), ("OCPI_TARIFFS_*", "tariffs"),
        ("OCPI_AUTH", "transport"), ("OCPI_FORMAT", "transport"),
    ),
}


def family_of(protocol: str | None) -> str:
    if protocol is None:
        return "-"
    if protocol.startswith("ocpi"):
        return "OCPI " + protocol.removeprefix("ocpi")
    return "OCPP 1.6" if protocol == "ocpp1.6" else "OCPP 2.x"


def profile_of(usecase: str | None, block: str | None, protocol: str | None) -> str:
    """The certification profile a use case's test belongs to in ``protocol``, as "family · name"."""
    family = family_of(protocol)
    for pattern, name in BY_USECASE.get(family, ()):
        if usecase and fnmatch.fnmatchcase(usecase, pattern):
            return f"{family} · {name}"
    if family == "OCPP 1.6" and block and block.endswith(" (1.6)"):   # the 1.6 blocks are its feature profiles
        return f"{family} · {block.removesuffix(' (1.6)')}"
    return f"{family} · (unmapped)"


def ordered(titles: Iterable[str]) -> list[str]:
    """Profiles in the order of ``PROFILES`` (Core first), any other after."""
    known = list(PROFILES)
    return sorted(set(titles), key=lambda t: (known.index(t) if t in known else len(known), t))


# ---------------------------------------------------------------------------- the id table
@dataclass
class IdRow:
    id: str
    tests: list[str] = field(default_factory=list)    # node ids, without the target
    sut: str = ""
    protocols: set[str] = field(default_factory=set)


def table_rows(entries: Iterable[tuple[str, str, str, str]]) -> list[IdRow]:
    """Rows from (id, node id, SUT role, protocol) — one per test a certification id is on."""
    rows: dict[str, IdRow] = {}
    for tc, nodeid, role, protocol in entries:
        row = rows.setdefault(tc, IdRow(tc, sut=role))
        test = re.sub(r"\[(csms|cs|cpo|emsp)-[^-\]]+-?", "[", nodeid).replace("[]", "")
        if test not in row.tests:
            row.tests.append(test)
        row.protocols.add(protocol)
    return [rows[k] for k in sorted(rows, key=_id_order)]


def _id_order(tc: str) -> tuple:
    return (tc.endswith("_CSMS"), not re.match(r"TC_[A-P]_", tc), tc)


def profile_sections(collected: Iterable["Collected"]) -> list[str]:
    """Markdown: per certification profile, its source and the use cases of the suites that belong to it."""
    members: dict[str, set[str]] = defaultdict(set)
    for test in collected:
        members[profile_of(test.usecase, test.block, test.protocol)].add(test.usecase)
    lines = ["", "## Certification profiles", "",
             "Which use cases `pytest suites --plan` and the readiness section count under each certification "
             "profile (harness/certification.py `BY_USECASE`; a 1.6 use case's block names its feature profile).", "",
             "| certification profile | use cases | source |", "|---|---|---|"]
    for title in ordered(members):
        source = PROFILES[title].source if title in PROFILES else ""
        lines.append(f"| {title} | {', '.join(sorted(members[title]))} | {source} |")
    return lines


def render_table(rows: list[IdRow], collected: Iterable["Collected"] = ()) -> str:
    lines = ["# Certification test-case ids",
             "",
             "Every public certification test case a test of the suites plays, the tests that play it and the public",
             "listing that names it. Generated from the suites' `checks(..., csms=TC(...), cs=TC(...))` markers by",
             "`python -m harness.certification docs/certification-ids.md`; do not edit by hand",
             "(tests/unit/test_certification.py fails when it differs from what the script makes).",
             "Select the tests of a case with `pytest suites --usecase TC_K_29_CSMS`.",
             "",
             f"{len(rows)} ids: " + ", ".join(f"{n} {what}" for what, n in _counts(rows).items()) + ".",
             "",
             "| id | SUT | versions | tests | listing |",
             "|---|---|---|---|---|"]
    for row in rows:
        listing = listing_of(row.id)
        source = f"[{listing.name}]({listing.address(row.id)})" if listing else "**no public listing**"
        tests = "<br>".join(f"`{t}`" for t in row.tests)
        lines.append(f"| {row.id} | {row.sut} | {', '.join(sorted(row.protocols))} | {tests} | {source} |")
    lines += ["", "## Listings", ""]
    labelled = {row.id for row in rows}
    for listing in LISTINGS:
        held = sum(1 for tc in labelled if listing.holds(tc))
        coverage = (f"{held} of its {len(listing.ids)} cases labelled here" if listing.complete
                    else f"{held} cases labelled here, each read on its page")
        lines.append(f"- **{listing.name}** ({listing.where.split('{')[0]}): {coverage}")
    lines += ["", NAMING_NOTE]
    lines += profile_sections(collected) if collected else []
    return "\n".join(lines) + "\n"


NAMING_NOTE = ("The 1.6 station ids follow the public station list, whose suffixes name the variants of a case "
               "(TC_023_4_CS: local start, authorize invalid; TC_061_1_CS: the cache cleared, the idTag presented "
               "again is sent in Authorize; TC_061_2_CS: ClearCache answered; TC_053_1_CS: a reserved connector "
               "used by a parentIdTag member, local). The 2025-06 draft of the 1.6 test case document, which "
               "ocpplab.com shows, names some of them without the suffix (TC_023_CS, TC_061_CS, TC_053_CS).")


def _counts(rows: list[IdRow]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for row in rows:
        side = "CSMS" if row.id.endswith("_CSMS") else "station"
        counts[f"{'2.0.1' if re.match(r'TC_[A-P]_', row.id) else '1.6'} {side}"] += 1
    return dict(sorted(counts.items()))


@dataclass(frozen=True)
class Collected:
    """A test of the embedded run as the tables need it."""
    nodeid: str
    usecase: str
    block: str | None
    role: str
    protocol: str
    ids: tuple[str, ...]


def collect(suites: str = "suites") -> list[Collected]:
    """Every use-case test the embedded run collects under ``suites``, with its certification ids."""
    import pytest

    from harness.suite import certifications_of

    collected: list[Collected] = []

    class Collector:
        @pytest.hookimpl(wrapper=True)
        def pytest_collection_modifyitems(self, items: list[Any]) -> Any:
            every = list(items)   # with the tests the embedded run leaves out for a profile variant (needs variant=)
            result = yield
            for item in every:
                target = getattr(item, "callspec", None) and item.callspec.params.get("target")
                marker = item.get_closest_marker("usecase")
                if target is not None and marker is not None:
                    collected.append(Collected(item.nodeid, marker.args[0], marker.kwargs.get("block"), target.role,
                                               target.protocol,
                                               certifications_of(item, target.role, target.protocol)))
            return result

    with contextlib.redirect_stdout(io.StringIO()):
        code = pytest.main([suites, "--collect-only", "-q", "-p", "no:cacheprovider"], plugins=[Collector()])
    if code not in (0, 5):
        raise SystemExit(f"collecting {suites} failed (exit {code})")
    return collected


def entries_of(collected: Iterable[Collected]) -> list[tuple[str, str, str, str]]:
    """(id, node id, SUT role, protocol): one per certification id on a test."""
    return [(tc, test.nodeid, test.role, test.protocol) for test in collected for tc in test.ids]


def main(argv: list[str]) -> int:
    target = Path(argv[0]) if argv else Path("docs/certification-ids.md")
    collected = collect()
    text = render_table(table_rows(entries_of(collected)), collected)
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
