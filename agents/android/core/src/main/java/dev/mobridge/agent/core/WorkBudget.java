package dev.mobridge.agent.core;

import dev.mobridge.agent.core.link.ActionVerb;
import dev.mobridge.agent.core.link.HubMessage;

/**
 * How long a command may keep the UI thread busy before the watchdog calls the agent
 * unresponsive: the fixed probe timeout plus the work the command asks for (typing is one
 * synchronous key injection per character on a device; a gesture lasts its duration), capped at
 * {@link #MAX_MS}. A 2,000-character text must not turn into "degraded" half way through.
 */
public final class WorkBudget {
    /** Per typed character (synchronous key injection, down and up, on a slow phone). */
    public static final long PER_CHAR_MS = 25;
    public static final long MAX_MS = 120_000;

    private WorkBudget() {}

    /** The budget of {@code cmd}, at least {@code baseMs}. */
    public static long ms(HubMessage.Command cmd, long baseMs) {
        long work = 0;
        if (cmd instanceof HubMessage.Text) {
            String t = ((HubMessage.Text) cmd).text;
            work = t == null ? 0 : PER_CHAR_MS * t.length();
        } else if (cmd instanceof HubMessage.NodeAction) {
            HubMessage.NodeAction a = (HubMessage.NodeAction) cmd;
            if (a.action == ActionVerb.SET_TEXT && a.text != null) {
                work = PER_CHAR_MS * a.text.length();
            }
        } else if (cmd instanceof HubMessage.Gesture) {
            work = Math.max(0, ((HubMessage.Gesture) cmd).durationMs);
        }
        return Math.min(MAX_MS, baseMs + work);
    }
}
