"""Actuators: how the harness makes the SUT do what the protocol cannot cause.

Every actuator has one coroutine, ``perform(action, body)``, which *starts* the action
and returns; the test then watches the wire for its effect, with a timeout. The manual
actuator (an operator at the bench) is in ``harness.actuators.manual``.
- ``ActionUnsupported`` → the test is skipped with the reason (HTTP 501, missing method);
- ``ActuatorFailed``   → the test is broken (the SUT is not blamed).
The actions and their JSON bodies are documented in docs/actuators.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, Protocol

import httpx

from harness.errors import ConfigError, HarnessError, NotApplicable
from harness.transport.http import default_trust
from harness.variance import Variance

if TYPE_CHECKING:
    from harness.actuators.manual import Terminal


class ActionUnsupported(NotApplicable):
    """The SUT cannot perform this action: the test does not apply."""


class ActuatorFailed(HarnessError):
    """The actuator could not perform the action: the verdict is broken."""


class Actuator(Protocol):
    async def perform(self, action: str, body: dict[str, Any]) -> Any:
        """Starts ``action``. What it returns is ignored, but for ``issue_token_a``: a token A the SUT
        accepts other than the one proposed in the body (the one an operator created)."""


class InProcessActuator:
    """Drives a reference implementation directly (self-conformance runs)."""

    def __init__(self, target: Any, variance: Variance | None = None):
        self.target = target
        self.variance = variance   # under legal variance, an action may be answered as unsupported (a 501)

    async def perform(self, action: str, body: dict[str, Any]) -> None:
        if action not in self.target.supported_actions():
            raise ActionUnsupported(f"{type(self.target).__name__} does not implement the action {action!r}")
        if self.variance is not None and self.variance.refuses_action(action):
            raise ActionUnsupported(f"the stand-in's actuator answered 501 for {action!r} (legal variance, seed "
                                    f"{self.variance.seed})")
        await self.target.perform(action, body)


class HttpActuator:
    """``POST {base}/{action}`` with the JSON body: 2xx done, 501 unsupported, else broken."""

    def __init__(self, base_url: str, *, timeout: float = 10.0):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    async def perform(self, action: str, body: dict[str, Any]) -> None:
        url = f"{self.base_url}/{action}"
        try:
            async with httpx.AsyncClient(timeout=self.timeout, verify=default_trust()) as client:
                response = await client.post(url, json=body)
        except httpx.HTTPError as error:
            raise ActuatorFailed(f"actuator {url} unreachable: {error!r}") from None
        if response.status_code == 501:
            raise ActionUnsupported(f"the SUT's actuator answered 501 for {action!r}: {response.text[:200]}")
        if not 200 <= response.status_code < 300:
            raise ActuatorFailed(f"actuator {url} answered HTTP {response.status_code}: {response.text[:500]}")


class ForStation:
    """A CSMS under test serving several of the harness's stations (a profile's [station] identities): every
    action's body names the station it is about, ``"station": identity`` (docs/actuators.md)."""

    def __init__(self, actuator: Actuator, identity: str):
        self.actuator = actuator
        self.identity = identity

    async def perform(self, action: str, body: dict[str, Any]) -> Any:
        return await self.actuator.perform(action, {**body, "station": self.identity})


class PythonActuator:
    """A vendor's class named ``module:Class`` with one (async or plain) method per action."""

    def __init__(self, spec: str, **context: Any):
        module_name, _, class_name = spec.partition(":")
        try:
            cls = getattr(importlib.import_module(module_name), class_name)
        except (ImportError, AttributeError) as error:
            raise ConfigError(f"actuator class {spec!r} cannot be loaded ({error}); "
                              f"give an importable module.path:ClassName") from None
        self.target = cls(**context) if context else cls()

    async def perform(self, action: str, body: dict[str, Any]) -> Any:
        method = getattr(self.target, action, None)
        if method is None:
            raise ActionUnsupported(f"{type(self.target).__name__} has no method {action!r}")
        try:
            result = method(**body)
            return (await result) if hasattr(result, "__await__") else result
        except (NotApplicable, HarnessError):
            raise
        except Exception as error:
            raise ActuatorFailed(f"actuator method {action} failed: {error!r}") from error


KINDS = ("manual", "http", "python")


def problems(kind: str | None, *, base_url: str | None = None, spec: str | None = None) -> list[str]:
    """What stops the actuator ``kind`` from being built, each with the fix."""
    if kind not in KINDS:
        return [f"--actuator {kind!r}: use manual, http or python"]
    if kind == "http" and not base_url:
        return ["--actuator http needs a base URL: --actuator-url http://host:port or [actuator] base_url in the profile"]
    if kind == "python" and not spec:
        return ["--actuator python needs the class: [actuator] class = \"module:Class\" in the profile"]
    return []


def build(kind: str, *, base_url: str | None = None, spec: str | None = None, terminal: Terminal | None = None,
          **operator: Any) -> Actuator:
    """The actuator for ``--actuator``; the in-process one is built by the arena itself. ``terminal`` and
    ``operator`` are the manual actuator's: where the operator is asked, and ``ManualActuator``'s
    keywords (what to call the SUT, how long the operator has, the profile's tokens)."""
    found = problems(kind, base_url=base_url, spec=spec)
    if found:
        raise ConfigError(found[0])
    if kind == "http":
        return HttpActuator(base_url)
    if kind == "manual":
        from harness.actuators.manual import ManualActuator   # it builds on this module's errors
        if terminal is None:
            raise ConfigError("--actuator manual needs the operator's terminal")
        return ManualActuator(terminal, **operator)
    return PythonActuator(spec)
