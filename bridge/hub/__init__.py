"""LAYER 3 — the hub: the composition root and the per-device runtime.

``app.Hub`` owns the task group, wires devices (agent links) to the subscriber server, and
exposes ``statistics()``. ``device.DeviceRuntime`` holds one device's snapshots, streams and
arbitration; ``service.HubService`` answers client requests; ``actions`` runs the pipeline.
"""
