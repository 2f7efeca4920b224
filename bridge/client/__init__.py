"""A Python client of the public protocol (async, with a thin synchronous facade).

Imports only ``bridge.wire``: it is what an external program would write.
"""
