package dev.mobridge.agent.core;

/**
 * Turns health probes into state transitions: ready -> degraded when a probe reports a reason
 * (or does not answer), degraded -> ready when a probe succeeds again. Only transitions are
 * reported, so the hub gets one status message per change, never a stream of them.
 */
public final class Watchdog {
    public static final String READY = "ready";
    public static final String DEGRADED = "degraded";

    private String state = READY;
    private String reason;

    /**
     * Feeds one probe result ({@code null} = healthy) and returns the new state when it changed,
     * else null.
     */
    public String observe(String probeReason) {
        if (probeReason == null) {
            if (state.equals(DEGRADED)) {
                state = READY;
                reason = null;
                return state;
            }
            return null;
        }
        if (state.equals(READY)) {
            state = DEGRADED;
            reason = probeReason;
            return state;
        }
        reason = probeReason;
        return null;
    }

    public String state() {
        return state;
    }

    public boolean degraded() {
        return state.equals(DEGRADED);
    }

    public String reason() {
        return reason;
    }
}
