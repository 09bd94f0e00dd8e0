"""The QR code's TOTP (harness.ocpp.totp): base62, the accepted intervals, the URL."""

from harness.ocpp import totp

SECRET, INTERVAL, LENGTH = b"unit-test-totp-secret", 30, 8


def code(at, offset=0):
    return totp.totp(SECRET, at, interval=INTERVAL, length=LENGTH, offset=offset)


def test_a_code_is_base62_of_the_given_length_and_stable_within_its_interval():
    first = code(1_700_000_010)
    assert len(first) == LENGTH and set(first) <= set(totp.BASE62)
    assert code(1_700_000_019) == first and code(1_700_000_040) != first


def test_the_current_previous_and_next_interval_are_accepted_and_no_other():
    now = 1_700_000_000
    for offset in (-1, 0, 1):
        assert totp.accepted(code(now, offset), SECRET, now, interval=INTERVAL, length=LENGTH)
    for offset in (-2, 2):
        assert not totp.accepted(code(now, offset), SECRET, now, interval=INTERVAL, length=LENGTH)
    assert not totp.accepted(code(now), b"another-secret-entirely", now, interval=INTERVAL, length=LENGTH)


def test_base62_writes_leading_zeros():
    assert totp.base62(61, 3) == "00Z" and totp.base62(62, 2) == "10"


def test_the_url_carries_its_parameters_and_limits():
    url = totp.qr_url("https://pay.example/qr", "CS 1", 2, "abc", maxcost=12.5, maxtime=3600)
    parameters = totp.parse_qr_url(url)
    assert parameters == {"chargingstationid": "CS 1", "evse": "2", "totp": "abc", "version": "1",
                          "maxcost": "12.5", "maxtime": "3600"}
    assert totp.transaction_limit(parameters) == {"maxCost": 12.5, "maxTime": 3600}
