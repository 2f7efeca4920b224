package dev.mobridge.agent.core;

/** A monotonic millisecond clock, injected so timing logic is testable without sleeping. */
public interface Clock {
    long nowMillis();

    Clock SYSTEM = () -> System.nanoTime() / 1_000_000L;
}
