package dev.mobridge.agent.core;

/**
 * Decides when UI events become a tree push. Pure state machine over caller-supplied times.
 *
 * <p>After the first event of a burst, a capture is due once no event arrived for
 * {@code quietMs} (stable) or, while events keep coming, {@code capMs} after the burst began
 * (not stable), so a screen that never settles is still pushed at least every {@code capMs}.
 * With no events, a "timer" capture is due {@code timerMs} after the previous capture (0
 * disables it) — it catches changes that raise no event; the pusher drops it when unchanged.
 * {@code quietMs} in a push is the time since the last event when the capture was decided.
 */
public final class ChangeDebouncer {
    /** A decision to capture now. */
    public static final class Fire {
        public final String reason;
        public final boolean stable;
        public final long quietMs;

        Fire(String reason, boolean stable, long quietMs) {
            this.reason = reason;
            this.stable = stable;
            this.quietMs = quietMs;
        }
    }

    public static final long NEVER = Long.MAX_VALUE;

    private final long quietMs;
    private final long capMs;
    private final long timerMs;
    private long burstStart = -1;
    private long lastEvent = -1;
    private long lastCapture;

    public ChangeDebouncer(long quietMs, long capMs, long timerMs, long now) {
        if (quietMs <= 0 || capMs < quietMs || timerMs < 0) {
            throw new IllegalArgumentException("need 0 < quiet <= cap and timer >= 0");
        }
        this.quietMs = quietMs;
        this.capMs = capMs;
        this.timerMs = timerMs;
        this.lastCapture = now;
    }

    public void onEvent(long now) {
        if (burstStart < 0) {
            burstStart = now;
        }
        lastEvent = now;
    }

    /** Whether events are waiting to be captured. */
    public boolean pending() {
        return burstStart >= 0;
    }

    /** When {@link #poll} will next return a decision, absent new events. */
    public long deadline() {
        if (burstStart >= 0) {
            return Math.min(lastEvent + quietMs, burstStart + capMs);
        }
        return timerMs == 0 ? NEVER : lastCapture + timerMs;
    }

    /** A decision when one is due at {@code now}, else null. A decision resets the burst. */
    public Fire poll(long now) {
        if (burstStart >= 0) {
            long quiet = now - lastEvent;
            if (quiet >= quietMs || now - burstStart >= capMs) {
                burstStart = -1;
                lastCapture = now;
                return new Fire("event", quiet >= quietMs, quiet);
            }
            return null;
        }
        if (timerMs > 0 && now - lastCapture >= timerMs) {
            lastCapture = now;
            long quiet = lastEvent < 0 ? now : now - lastEvent;
            return new Fire("timer", quiet >= quietMs, quiet);
        }
        return null;
    }

    /** Records a capture made for another reason (a capture command), restarting the timer. */
    public void captured(long now) {
        lastCapture = now;
    }

    /** Milliseconds since the last event at {@code now}; {@code now} itself when none yet. */
    public long quietFor(long now) {
        return lastEvent < 0 ? now : now - lastEvent;
    }
}
