"""LAYER 1 — the sans-I/O semantic core.

Never imports an I/O library, a clock or a source of randomness: callers pass times and ids in.
Pure functions return result values for expected outcomes instead of raising.
"""
