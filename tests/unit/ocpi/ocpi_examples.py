"""Realistic OCPI objects for the tests: a fresh deep copy on every call, so tests can break them."""

from __future__ import annotations

import copy

_BUSINESS = {"name": "Voltaro Charging B.V.", "website": "https://voltaro.example/",
             "logo": {"url": "https://voltaro.example/logo.png", "category": "OPERATOR", "type": "png",
                      "width": 512, "height": 512}}

_CREDENTIALS = {
    "token": "ebf3b399-779f-4497-9b9d-ac6ad3cc44d2",
    "url": "https://emsp.example/ocpi/versions",
    "roles": [{"role": "EMSP", "party_id": "EXA", "country_code": "NL", "business_details": _BUSINESS}],
}

_CONNECTOR = {
    "id": "1", "standard": "IEC_62196_T2", "format": "SOCKET", "power_type": "AC_3_PHASE",
    "max_voltage": 230, "max_amperage": 32, "max_electric_power": 22000,
    "tariff_ids": ["TARIFF-AC-11"], "last_updated": "2024-03-01T09:15:00Z",
}

_EVSE = {
    "uid": "3256", "evse_id": "NL*VOL*E3256*1", "status": "AVAILABLE",
    "status_schedule": [{"period_begin": "2024-06-01T00:00:00Z", "status": "REMOVED"}],
    "capabilities": ["RFID_READER", "REMOTE_START_STOP_CAPABLE", "CHARGING_PREFERENCES_CAPABLE"],
    "connectors": [_CONNECTOR], "floor_level": "-1", "physical_reference": "3",
    "coordinates": {"latitude": "52.370216", "longitude": "4.895168"},
    "parking": [{"parking_id": "P-12", "evse_position": "LEFT"}],
    "accepted_service_providers": ["Voltaro eMobility"],
    "last_updated": "2024-03-01T09:15:00Z",
}

_LOCATION = {
    "country_code": "NL", "party_id": "VOL", "id": "LOC-0001", "publish": True,
    "name": "Parkeergarage Centrum", "address": "Damrak 1", "city": "Amsterdam",
    "postal_code": "1012 LG", "country": "NLD",
    "coordinates": {"latitude": "52.373169", "longitude": "4.893000"},
    "related_locations": [{"latitude": "52.373500", "longitude": "4.892100",
                           "name": {"language": "nl", "text": "Ingang garage"}}],
    "parking_type": "PARKING_GARAGE",
    "evses": [_EVSE],
    "parking_places": [{"id": "P-12", "vehicle_types": ["PERSONAL_VEHICLE", "DISABLED"],
                        "restricted_to_type": False, "reservation_required": False,
                        "max_vehicle_height": 210, "direction": "PERPENDICULAR",
                        "images": [{"url": "https://voltaro.example/p12.jpg", "category": "LOCATION",
                                    "type": "jpeg"}]}],
    "directions": [{"language": "en", "text": "Level -1, follow the green signs"}],
    "operator": _BUSINESS,
    "facilities": ["TRAIN_STATION", "CAFE"],
    "time_zone": "Europe/Amsterdam",
    "opening_times": {"twentyfourseven": False,
                      "regular_hours": [{"weekday": day, "period_begin": "06:00", "period_end": "23:30"}
                                        for day in range(1, 8)],
                      "exceptional_closings": [{"period_begin": "2024-12-25T00:00:00Z",
                                                "period_end": "2024-12-26T00:00:00Z"}]},
    "charging_when_closed": False,
    "energy_mix": {"is_green_energy": True,
                   "energy_sources": [{"source": "WIND", "percentage": 70}, {"source": "SOLAR", "percentage": 30}]},
    "help_phone": "+31201234567",
    "last_updated": "2024-03-01T09:15:00Z",
}

_SESSION = {
    "country_code": "NL", "party_id": "VOL", "id": "101",
    "start_date_time": "2024-03-01T09:00:00Z", "end_date_time": "2024-03-01T10:30:00Z",
    "kwh": 14.2,
    "cdr_token": {"country_code": "NL", "party_id": "EXA", "uid": "012345678", "type": "RFID",
                  "contract_id": "NL-EXA-C12345678-X"},
    "auth_method": "WHITELIST", "authorization_reference": "AUTH-7781",
    "location_id": "LOC-0001", "evse_uid": "3256", "connector_id": "1",
    "currency": "EUR",
    "charging_periods": [{"start_date_time": "2024-03-01T09:00:00Z",
                          "dimensions": [{"type": "ENERGY", "volume": 14.2},
                                         {"type": "MAX_CURRENT", "volume": 30}],
                          "tariff_id": "TARIFF-AC-11"}],
    "total_cost": {"excl_vat": 4.26, "incl_vat": 5.15},
    "status": "COMPLETED",
    "last_updated": "2024-03-01T10:30:05Z",
}


def credentials() -> dict:
    return copy.deepcopy(_CREDENTIALS)


def location() -> dict:
    return copy.deepcopy(_LOCATION)


def session() -> dict:
    return copy.deepcopy(_SESSION)
