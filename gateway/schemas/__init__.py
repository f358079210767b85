"""The server's own answer models: the spectator replay (``watch``) and stream ids (``streams``).

Every other request and answer body is defined once, in the SDK's :mod:`agents.wire`,
and the gateway imports it from there: server and client share one definition of the
wire contract.
"""
