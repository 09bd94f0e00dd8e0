"""The arena: the one API a test plays a use case through, whichever side the SUT plays.

``base`` holds what every arena does alike (roles, act, undo, one dialogue from either side, the verdict on
a silent SUT); ``ocpp`` the OCPP arena (the link, the actuator, the harness's station or CSMS); ``ocpi`` the
OCPI arena (HTTP both ways). The roles are ``harness.roles``.
"""
