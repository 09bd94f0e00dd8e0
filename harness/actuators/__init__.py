"""Actuators: how the harness makes the SUT do what the protocol cannot cause.

Every actuator has one coroutine, ``perform(action, body)``, which *starts* the action
and returns; the test then watches the wire for its effect, with a timeout.
- ``ActionUnsupported`` → the test is skipped with the reason (HTTP 501, missing method);
- ``ActuatorFailed``   → the test is broken (the SUT is not blamed).
The actions and their JSON bodies are documented in docs/actuators.md.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Protocol

import httpx

from harness.errors import ConfigError, HarnessError, NotApplicable


class ActionUnsupported(NotApplicable):
    """The SUT cannot perform this action: the test does not apply."""


class ActuatorFailed(HarnessError):
    """The actuator could not perform the action: the verdict is broken."""


class Actuator(Protocol):
    async def perform(self, action: str, body: dict[str, Any]) -> None: ...


class InProcessActuator:
    """Drives a reference implementation directly (self-conformance runs)."""

    def __init__(self, target: Any):
        self.target = target

    async def perform(self, action: str, body: dict[str, Any]) -> None:
        if action not in self.target.supported_actions():
            raise ActionUnsupported(f"{type(self.target).__name__} does not implement the action {action!r}")
        await self.target.perform(action, body)


class HttpActuator:
    """``POST {base}/{action}`` with the JSON body: 2xx done, 501 unsupported, else broken."""

    def __init__(self, base_url: str, *, timeout: float = 10.0):
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    async def perform(self, action: str, body: dict[str, Any]) -> None:
        url = f"{self.base_url}/{action}"
        try:
            async with httpx.AsyncClient(timeout=self.timeout) as client:
                response = await client.post(url, json=body)
        except httpx.HTTPError as error:
            raise ActuatorFailed(f"actuator {url} unreachable: {error!r}") from None
        if response.status_code == 501:
            raise ActionUnsupported(f"the SUT's actuator answered 501 for {action!r}: {response.text[:200]}")
        if not 200 <= response.status_code < 300:
            raise ActuatorFailed(f"actuator {url} answered HTTP {response.status_code}: {response.text[:500]}")


class ManualActuator:
    """Prints the instruction for an operator; the harness then waits for the expected
    message with the profile's action timeout (the wait is the confirmation)."""

    def __init__(self, stream=None):
        self.stream = stream or sys.__stderr__

    async def perform(self, action: str, body: dict[str, Any]) -> None:
        details = ", ".join(f"{k}={v}" for k, v in body.items() if k != "id_token") or "no parameters"
        token = body.get("id_token")
        if token:
            details += f", token {token.get('type')} ending …{str(token.get('idToken'))[-2:]}"
        self.stream.write(f"\n>>> MANUAL ACTION: {action.replace('_', ' ')} ({details})\n")
        self.stream.flush()


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

    async def perform(self, action: str, body: dict[str, Any]) -> None:
        method = getattr(self.target, action, None)
        if method is None:
            raise ActionUnsupported(f"{type(self.target).__name__} has no method {action!r}")
        try:
            result = method(**body)
            if hasattr(result, "__await__"):
                await result
        except (NotApplicable, HarnessError):
            raise
        except Exception as error:
            raise ActuatorFailed(f"actuator method {action} failed: {error!r}") from error


def build(kind: str, *, base_url: str | None = None, spec: str | None = None) -> Actuator:
    """The actuator for ``--actuator``; the in-process one is built by the arena itself."""
    if kind == "http":
        if not base_url:
            raise ConfigError("--actuator http needs a base URL: --actuator-url http://host:port "
                              "or [actuator] base_url in the profile")
        return HttpActuator(base_url)
    if kind == "manual":
        return ManualActuator()
    if kind == "python":
        if not spec:
            raise ConfigError("--actuator python needs the class: [actuator] class = \"module:Class\" in the profile")
        return PythonActuator(spec)
    raise ConfigError(f"unknown actuator {kind!r}: use manual, http or python")
