import pytest

from harness.ocpi.envelope import StatusError
from harness.ocpi.schemas import SchemaViolation
from harness.ocpi.versions import Endpoint, Version, VersionRules, negotiate, read_details, read_versions, version_key

THEIRS = [Version("2.1.1", "https://p/2.1.1"), Version("2.2", "https://p/2.2"), Version("2.2.1", "https://p/2.2.1")]


def test_versions_compare_as_numbers():
    assert version_key("2.2.1") > version_key("2.2") > version_key("2.1.1")
    assert version_key("2.10") > version_key("2.9")
    with pytest.raises(ValueError):
        version_key("2.2-d2")


def test_latest_mutual_version_wins():
    assert negotiate(["2.1.1", "2.2", "2.2.1", "2.3.0"], THEIRS).url == "https://p/2.2.1"
    assert negotiate(["2.2", "2.1.1"], THEIRS).version == "2.2"


def test_order_of_the_lists_does_not_matter():
    assert negotiate(["2.2.1", "2.1.1"], list(reversed(THEIRS))).version == "2.2.1"


def test_no_mutual_version_is_3002():
    with pytest.raises(StatusError) as caught:
        negotiate(["2.3.0"], THEIRS)
    assert (caught.value.rule, int(caught.value.status_code)) == (VersionRules.mutual_version, 3002)
    assert caught.value.actual == ["2.1.1", "2.2", "2.2.1"]


def test_read_versions_and_its_faults():
    assert read_versions([{"version": "2.2.1", "url": "https://p/2.2.1"}]) == [THEIRS[2]]
    with pytest.raises(SchemaViolation) as caught:
        read_versions([{"version": "2.2.1", "url": "https://p/2.2.1"}, {"version": "2.2"}])
    assert str(caught.value.violations[0]) == "[1].url: required"
    with pytest.raises(SchemaViolation):
        read_versions({"version": "2.2.1", "url": "https://p/2.2.1"})


DETAILS = {"version": "2.2.1", "endpoints": [
    {"identifier": "credentials", "role": "RECEIVER", "url": "https://p/2.2.1/credentials"},
    {"identifier": "locations", "role": "SENDER", "url": "https://p/2.2.1/locations"},
    {"identifier": "sessions", "role": "RECEIVER", "url": "https://p/2.2.1/sessions"},
]}


def test_endpoint_lookup_by_module_and_role():
    details = read_details(DETAILS)
    assert details.endpoint("locations", "SENDER").url == "https://p/2.2.1/locations"
    assert details.endpoint("sessions").url == "https://p/2.2.1/sessions"


def test_credentials_endpoint_found_whatever_its_role():
    assert read_details(DETAILS).endpoint("credentials", "SENDER") == \
        Endpoint("credentials", "RECEIVER", "https://p/2.2.1/credentials")


@pytest.mark.parametrize("identifier, role", [("locations", "RECEIVER"), ("tokens", None)])
def test_missing_endpoint_is_3003(identifier, role):
    with pytest.raises(StatusError) as caught:
        read_details(DETAILS).endpoint(identifier, role)
    assert (caught.value.rule, int(caught.value.status_code)) == (VersionRules.endpoints, 3003)


def test_details_faults_name_the_field():
    broken = {"version": "2.2.1", "endpoints": [{"identifier": "locations", "role": "SOURCE", "url": "u"}]}
    with pytest.raises(SchemaViolation) as caught:
        read_details(broken)
    assert str(caught.value.violations[0]) == "endpoints[0].role: must be one of SENDER, RECEIVER"
    with pytest.raises(SchemaViolation) as caught:
        read_details({"version": "2.2.1", "endpoints": []})
    assert str(caught.value.violations[0]) == "endpoints: must not be empty"
