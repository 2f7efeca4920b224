"""mobridge: a hub that lets many programs share one phone."""

__version__ = "0.1.0"
