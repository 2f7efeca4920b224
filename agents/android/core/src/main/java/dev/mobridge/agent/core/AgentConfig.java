package dev.mobridge.agent.core;

/** Tunables of the agent server; defaults are the production values. */
public final class AgentConfig {
    public String agentName = "mobridge-android-agent";
    public String agentVersion = "0.1.0";
    /** A push waits for this long without events (the screen is then "stable"). */
    public long quietMs = 100;
    /** ... but never longer than this after the first event of a burst. */
    public long capMs = 500;
    /** Capture this often without events, pushing only when the tree changed; 0 disables. */
    public long timerMs = 2000;
    /** Largest hub -> agent message accepted (bytes); larger ones close the link with 1009. */
    public long maxMessageBytes = 1 << 20;
    public int handshakeTimeoutMs = 10_000;
    public int helloTimeoutMs = 10_000;
    /** The server pings this often; a link silent for {@link #idleTimeoutMs} is closed. */
    public long keepaliveMs = 15_000;
    public int idleTimeoutMs = 60_000;
    public long watchdogIntervalMs = 1000;
    /** A health probe (or any backend call) taking longer than this marks the agent degraded. */
    public long probeTimeoutMs = 5000;
}
