"""The OCPI rows of the variance table: each changes what a stand-in puts on the wire, and what it
puts there stays legal (same instant, same ids ignoring case, a Link the pages can be walked by).
Two reference peers talk in-process; the CPO stands in under variance, the eMSP reads it."""

import json

import pytest

from harness.ocpi.locations import LOCATIONS
from harness.ocpi.pagination import PageWalker, read_page_headers
from harness.ocpi.timestamps import parse_datetime
from harness.reference.ocpi import CPO, EMSP, OcpiPeer, PeerIdentity
from harness.reference.ocpi.locations import build_location, sample_locations
from harness.transport.http import HttpClient, HttpResponse, InProcessNetwork, asgi_app
from harness.variance import FREEDOMS, ROWS, Variance

TOKEN_A = "unit-token-a-0001"
OCPI_ROWS = [f.id for f in FREEDOMS if f.protocols == "ocpi" and f.modelled]
SEEDS = range(12)


async def walk(seed: int, path: str = "locations") -> tuple[Variance, list, list]:
    """A CPO stand-in under ``seed``'s variance, registered with by an eMSP that then walks the
    Locations list: (variance, the raw answers, the objects walked)."""
    network = InProcessNetwork()
    variance = Variance(seed, "unit", chance=0.9)
    cpo = OcpiPeer(PeerIdentity(CPO, "NL", "CPO", "cpo"), http=HttpClient(transport=network),
                   stock={LOCATIONS: sample_locations("NL", "CPO", 5)}, page_limit=4)
    emsp = OcpiPeer(PeerIdentity(EMSP, "DE", "MSP", "emsp"), http=HttpClient(transport=network))
    cpo.vary(variance)
    cpo.bind(network.add("cpo", cpo.app), token_a=TOKEN_A)
    emsp.bind(network.add("emsp", emsp.app))
    await emsp.register_with(cpo.versions_url, TOKEN_A)
    if variance.slashed:   # the form not published is moved to the published one, and followed
        moved = await emsp.send("GET", cpo.versions_url.rstrip("/"), token=emsp.peer_token)
        assert moved.status == 200 and moved.url == cpo.versions_url
    walker, answers = PageWalker(emsp.other_url(LOCATIONS) + "?limit=3"), []
    while not walker.done:
        url = walker.next_url
        answer = await emsp.send("GET", url, token=emsp.peer_token, module=LOCATIONS)
        answers.append(answer)
        walker.feed(url, answer.response_headers, answer.json()["data"])
    assert not emsp.violations, emsp.violations   # every form the stand-in took is legal
    return variance, answers, walker.items


async def test_every_modelled_ocpi_row_fires_on_the_wire():
    fired = set()
    for seed in SEEDS:
        variance, _, items = await walk(seed)
        fired |= set(variance.taken)
        assert len(items) == 5
    assert set(OCPI_ROWS) - {"ocpi.omit_optional"} <= fired


async def test_a_walk_under_variance_reads_the_same_locations():
    reference = sample_locations("NL", "CPO", 5)
    for seed in SEEDS:
        _, _, items = await walk(seed)
        for sent, held in zip(reference, items):
            assert held["id"].casefold() == sent["id"].casefold()
            assert parse_datetime(held["last_updated"]) == parse_datetime(sent["last_updated"])
            assert {k for k, v in held.items() if v is not None} <= set(sent)


async def test_header_names_and_link_forms_reach_the_wire():
    names, links = set(), set()
    for seed in SEEDS:
        _, answers, _ = await walk(seed)
        names |= {name for answer in answers for name, _ in answer.response_headers}
        links |= {answer.header("Link") for answer in answers if answer.header("Link")}
    assert "x-total-count" in names and ({"X-Total-Count", "X-TOTAL-COUNT", "x-TOTAL-cOUNT"} & names)
    assert any(link != f'<{read_page_headers({"Link": link}.items()).next_url}>; rel="next"' for link in links)


def test_omitted_members_are_only_those_whose_absence_means_the_same():
    location = {**build_location("NL", "CPO", "L1", [("E1", ["1"])], "2024-03-01T09:00:00Z"),
                "charging_when_closed": True, "related_locations": []}
    omitted = set()
    for seed in range(40):
        variance = Variance(seed, "omit", chance=1.0)
        varied = variance.ocpi_object("location", location)
        omitted |= set(location) - set(varied)
        assert variance.ocpi_object("location", location, whole=False).keys() >= location.keys()   # never a PATCH
    assert omitted == {"charging_when_closed", "related_locations"}


def test_ids_keep_one_spelling_and_the_peers_values_are_echoed():
    for seed in range(20):
        variance = Variance(seed, "ids", chance=1.0)
        session = {"id": "Ses-1", "location_id": "LOC-1", "authorization_reference": "Ref-9",
                   "cdr_token": {"country_code": "DE", "party_id": "MSP", "uid": "AB12", "type": "RFID",
                                 "contract_id": "DE-MSP-C1"}}
        first, second = (variance.ocpi_object("session", session, whole=False) for _ in range(2))
        assert first == second
        assert first["authorization_reference"] == "Ref-9" and first["cdr_token"] == session["cdr_token"]
        assert variance.ocpi_object("session", session, whole=False, owned=False) == session


def test_timestamps_keep_the_instant_in_one_form_per_platform():
    forms = set()
    for seed in range(20):
        variance = Variance(seed, "time", chance=1.0)
        written = [variance.ocpi_timestamp(stamp) for stamp in ("2024-03-01T09:00:00Z", "2024-03-01T09:00:00.25Z")]
        assert parse_datetime(written[1]) == parse_datetime("2024-03-01T09:00:00.25Z")
        forms.add(written[0][19:])
    assert any(form.endswith("Z") for form in forms) and any(form.endswith("+00:00") for form in forms)
    assert any(len(form) > 6 for form in forms) and len(forms) > 4


async def test_the_http_client_follows_a_same_origin_307_with_method_and_body():
    async def app_handler(request):
        if request.path == "/moved":
            return HttpResponse(307, b"", {"Location": "/moved/"})
        if request.path == "/away":
            return HttpResponse(307, b"", {"Location": "http://elsewhere.invalid/"})
        return HttpResponse(200, json.dumps([request.method, request.body.decode()]).encode())

    network = InProcessNetwork()
    base = network.add("server", asgi_app(app_handler))
    client = HttpClient(transport=network)
    followed = await client.request("PUT", f"{base}/moved", body=b"{}")
    assert (followed.status, followed.json(), followed.url) == (200, ["PUT", "{}"], f"{base}/moved/")
    assert (await client.request("GET", f"{base}/away")).status == 307   # another origin: returned as it is


@pytest.mark.parametrize("row", OCPI_ROWS)
def test_each_ocpi_row_names_its_source(row):
    assert ROWS[row].source and ROWS[row].does
