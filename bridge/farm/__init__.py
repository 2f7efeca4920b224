"""LAYER 2 — farm I/O over NATS (nats-py): the registry of hubs and their devices
(heartbeats), relayed streams and forwarded requests. The hub composes it like ``net`` and
``devices``; this package never imports them (nor the hub)."""
