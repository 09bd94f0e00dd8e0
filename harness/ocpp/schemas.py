"""Validation of OCPP payloads against the Open Charge Alliance's official JSON schemas.

The schemas are loaded at run time from the installed ``ocpp`` package (never copied into
this repository): ``ocpp/v16/schemas/<Action>.json`` and ``<Action>Response.json`` (draft-04),
``ocpp/v201|v21/schemas/<Action>Request.json`` and ``<Action>Response.json`` (draft-06).
Every class in them is closed (``additionalProperties: false``) except ``CustomDataType``.

Two validators per (version, action, direction), each compiled once: ``compiled`` (jsonschema-rs)
judges every payload and only says yes or no; a payload it rejects is walked again by ``detailed``
(jsonschema), which names every violation, its field and keyword (the CALLERROR code follows the
first). The two apply the same rules (tests/unit/ocpp/test_schema_agreement.py), and where a rule
is this module's own, both call the same function:

- Numbers are exact. Frames are parsed with ``Decimal`` numbers and the schemas too, so
  ``multipleOf: 0.1`` (1.6 charging limits) is judged on the digits sent (``is_multiple``; a float
  the harness built on its shortest repr). In draft 6 (2.x) a number with a zero fraction is an
  integer, a parsed ``Decimal("300.0")`` as much as the float 300.0.
- ``format: date-time`` is asserted (``is_date_time``):
  - 2.x: RFC 3339 §5.6, the meaning of ``date-time`` in the draft-06 schemas: date, ``T``, time,
    optional fraction, and a zone (``Z`` or ±hh:mm);
  - 1.6: ISO 8601 notation (spec 002 rule 9: receivers handle fractional seconds and zone offsets;
    UTC is only recommended), so the zone may be absent and an offset may drop its colon.
  A value that is not such a time is a property fault (PropertyConstraintViolation). ``format: uri``
  (two 2.x fields) stays unchecked.
"""

from __future__ import annotations

import calendar
import json
import re
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from collections.abc import Callable, Iterator
from importlib import resources
from importlib.resources.abc import Traversable
from typing import TYPE_CHECKING, Any, Literal

import jsonschema_rs

if TYPE_CHECKING:   # jsonschema is imported only when a payload is invalid: ~8 MB a load process need not pay
    import jsonschema

from harness.ocpp.errors import FORMAT, KEYWORD_KIND, canonical_code
from harness.ocpp.versions import OcppVersion

Direction = Literal["request", "response"]


@dataclass(frozen=True)
class SchemaViolation:
    """One way a payload breaks its schema, in terms a reader can act on."""
    path: str        # JSON path of the field, e.g. "idToken.type"
    keyword: str     # the schema keyword that failed, e.g. "maxLength"
    message: str

    @property
    def kind(self) -> str:
        return KEYWORD_KIND.get(self.keyword, FORMAT)

    def __str__(self) -> str:
        return f"{self.path or '(payload)'}: {self.message} [{self.keyword}]"


def _file_name(version: OcppVersion, action: str, direction: Direction) -> str:
    if version is OcppVersion.V16:
        return f"{action}.json" if direction == "request" else f"{action}Response.json"
    return f"{action}{'Request' if direction == 'request' else 'Response'}.json"


@lru_cache(maxsize=None)
def _schema_folder(version: OcppVersion) -> Traversable:
    return resources.files("ocpp") / version.schema_package / "schemas"


@lru_cache(maxsize=None)
def known_actions(version: OcppVersion) -> frozenset[str]:
    """Actions that have a request schema in this version."""
    names = set()
    for entry in _schema_folder(version).iterdir():
        stem = entry.name.removesuffix(".json")
        if stem.endswith("Response"):
            continue
        names.add(stem.removesuffix("Request") if version.is_2x else stem)
    return frozenset(names)


_DATE_TIME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?"
                        r"(?:[Zz]|([+-])([0-9]{2})(:?)([0-9]{2}))?")
_MONTH_DAYS = (0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def is_date_time(version: OcppVersion, value: str) -> bool:
    """``value`` is a date-time as this version writes them (see the module docstring).

    Runs on every timestamp received, so it compares digits as text rather than building a datetime.
    """
    match = _DATE_TIME.fullmatch(value)
    if match is None:
        return False
    year, month, day, hour, minute, second, sign, zone_hour, colon, zone_minute = match.groups()
    month_number, day_number = int(month), int(day)
    if not (1 <= month_number <= 12 and 1 <= day_number <= _MONTH_DAYS[month_number]
            and hour <= "23" and minute <= "59" and second <= "60"):   # RFC 3339 allows a leap second: 60
        return False
    if month_number == 2 and day_number == 29 and not calendar.isleap(int(year)):
        return False
    if sign is None:
        return value[-1] in "Zz" or not version.is_2x
    return zone_hour <= "23" and zone_minute <= "59" and (colon == ":" or not version.is_2x)


def _date_time_checker(version: OcppVersion) -> Callable[[object], bool]:
    """The ``format: date-time`` check of ``version``; a value that is no string is not the format's business."""
    return lambda value: not isinstance(value, str) or is_date_time(version, value)


def _unchecked(value: Any) -> bool:
    return True


def is_multiple(value: int | float | Decimal, divisor: int | Decimal) -> bool:
    """``value`` is a whole multiple of ``divisor``, judged on decimal digits (a float on its shortest
    repr: 16.1 is a multiple of 0.1). Exact at any size, and as cheap for 1E+999999999 as for 16.1."""
    number = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    _, digits, exponent = number.as_tuple()
    if not isinstance(exponent, int):   # 'n', 'N', 'F': NaN, sNaN, Infinity
        return False
    _, step_digits, step_exponent = Decimal(divisor).as_tuple()
    if not isinstance(step_exponent, int):
        raise ValueError(f"multipleOf {divisor} is not a finite number")
    mantissa, step = int(Decimal((0, digits, 0))), int(Decimal((0, step_digits, 0)))
    if exponent >= step_exponent:     # value / divisor = mantissa * 10**shift / step
        return mantissa * pow(10, exponent - step_exponent, step) % step == 0
    shift = step_exponent - exponent  # value / divisor = mantissa / (step * 10**shift)
    return mantissa == 0 if shift > len(digits) else mantissa % (step * 10 ** shift) == 0


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


class _ExactMultipleOf:
    """``multipleOf`` for the compiled validator (a jsonschema-rs custom keyword): the same exact rule."""

    def __init__(self, parent_schema: dict[str, Any], divisor: Any, schema_path: list[Any]) -> None:
        self.divisor = Decimal(repr(divisor)) if isinstance(divisor, float) else divisor

    def validate(self, instance: Any) -> None:
        if _is_number(instance) and not is_multiple(instance, self.divisor):
            raise ValueError(f"{instance} is not a multiple of {self.divisor}")


@lru_cache(maxsize=None)
def _detailed_class(is_2x: bool) -> type[jsonschema.protocols.Validator]:
    """The detailed validator class: jsonschema's draft 4 (1.6) or 6 (2.x) with the payload's Decimals in mind
    (see ``is_multiple``) and a tuple the harness built sent as a JSON array."""
    import jsonschema

    def multiple_of(validator: jsonschema.protocols.Validator, divisor: int | Decimal, instance: Any,
                    schema: dict[str, Any]) -> Iterator[jsonschema.ValidationError]:
        if validator.is_type(instance, "number") and not is_multiple(instance, divisor):
            yield jsonschema.ValidationError(f"{instance!r} is not a multiple of {divisor}")

    def is_array(checker: jsonschema.TypeChecker, instance: object) -> bool:
        return isinstance(instance, (list, tuple))

    def is_draft6_integer(checker: jsonschema.TypeChecker, instance: object) -> bool:
        """Draft 6: a number with a zero fraction is an integer, a parsed ``Decimal("300.0")`` as much as a float."""
        if isinstance(instance, Decimal):
            return instance.is_finite() and instance == instance.to_integral_value()
        return bool(jsonschema.Draft6Validator.TYPE_CHECKER.is_type(instance, "integer"))

    draft = jsonschema.Draft6Validator if is_2x else jsonschema.Draft4Validator
    types = {"array": is_array, "integer": is_draft6_integer} if is_2x else {"array": is_array}
    made: type[jsonschema.protocols.Validator] = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        draft, {"multipleOf": multiple_of}, type_checker=draft.TYPE_CHECKER.redefine_many(types))
    return made


@lru_cache(maxsize=None)
def schema(version: OcppVersion, action: str, direction: Direction) -> dict[str, Any]:
    """The official schema of ``action``'s ``direction`` in ``version`` (loaded once; never to be changed)."""
    return _schema(version, action, direction)


def resolved(root: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """``node`` of the schema ``root`` with its ``$ref`` (``#/definitions/...``) followed."""
    while "$ref" in node:
        target: Any = root
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def _schema(version: OcppVersion, action: str, direction: Direction) -> dict[str, Any]:
    path = _schema_folder(version) / _file_name(version, action, direction)
    if direction == "request" and not path.is_file():
        path = _schema_folder(version) / f"{action}.json"  # 2.1 SEND-only, e.g. NotifyPeriodicEventStream.json
    loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"), parse_float=Decimal)
    return loaded


@lru_cache(maxsize=None)
def compiled(version: OcppVersion, action: str, direction: Direction) -> jsonschema_rs.Validator:
    """The fast validator of (version, action, direction), compiled once: it only says yes or no."""
    return jsonschema_rs.validator_for(
        _schema(version, action, direction), validate_formats=True,
        formats={"date-time": _date_time_checker(version), "uri": _unchecked},
        keywords={"multipleOf": _ExactMultipleOf})


@lru_cache(maxsize=None)
def detailed(version: OcppVersion, action: str, direction: Direction) -> jsonschema.protocols.Validator:
    """The validator that names every violation, compiled once, used only for a payload ``compiled`` rejects."""
    import jsonschema
    checker = jsonschema.FormatChecker(formats=())
    checker.checks("date-time")(_date_time_checker(version))
    return _detailed_class(version.is_2x)(_schema(version, action, direction), format_checker=checker)


def validate(version: OcppVersion, action: str, direction: Direction, payload: Any) -> list[SchemaViolation]:
    """All violations of ``payload``, most relevant first; empty when valid.

    The compiled validator judges first; only a payload it rejects (or cannot read: a Python value
    that is no JSON, like a datetime the harness forgot to format) is walked again by the detailed
    one, whose verdict stands.
    Raises KeyError for an action the version does not define.
    """
    if action not in known_actions(version):
        raise KeyError(action)
    try:
        if compiled(version, action, direction).is_valid(payload):
            return []
    except ValueError:   # "Unsupported type": the detailed validator names the field
        pass
    errors = list(detailed(version, action, direction).iter_errors(payload))
    if not errors:
        return []
    from jsonschema.exceptions import best_match
    first = best_match(errors)
    ordered = [first] + [e for e in errors if e is not first]
    return [SchemaViolation(e.json_path.removeprefix("$").lstrip("."), str(e.validator), e.message)
            for e in ordered]


def error_code(version: OcppVersion, violations: list[SchemaViolation]) -> str:
    """The CALLERROR code this harness sends for a schema-invalid request."""
    return canonical_code(version, violations[0].kind)
