package dev.mobridge.agent.core.capture;

import dev.mobridge.agent.core.SecureWindows;
import dev.mobridge.agent.core.link.RawWindow;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Decides when a screenshot must ask the window manager again which windows are secure.
 *
 * <p>Reading FLAG_SECURE costs a shell {@code dumpsys window windows} (tens of milliseconds and
 * a process on the device). The answer is kept for one window signature ({@link #signature}:
 * every window's id, type, layer, title and bounds, all read from the window list without
 * fetching a node) and re-read when the signature
 * changed or the answer is older than {@link #MAX_AGE_MS} (an app may set FLAG_SECURE on a
 * window it already shows: the age bounds how long a stale "not secure" can last).
 */
public final class SecureCheck {
    public static final long MAX_AGE_MS = 5000;

    /** The shell half: the text of {@code dumpsys window windows}. */
    public interface Dump {
        String windows() throws Exception;
    }

    private String signature;
    private long at;
    private List<String> secure = Collections.emptyList();
    private int dumps;

    /** A compact, order-preserving description of the windows on screen. */
    public static String signature(List<RawWindow> windows) {
        StringBuilder s = new StringBuilder();
        for (RawWindow w : windows) {
            s.append(w.id).append('|').append(w.type).append('|').append(w.layer).append('|')
                    .append(w.title).append('|');
            if (w.bounds != null) {
                for (int b : w.bounds) {
                    s.append(b).append(',');
                }
            }
            s.append(';');
        }
        return s.toString();
    }

    /** The visible secure windows for {@code signature}, dumping only when needed. */
    public List<String> secureWindows(String signature, long nowMs, Dump dump) throws Exception {
        if (signature.equals(this.signature) && nowMs - at < MAX_AGE_MS && nowMs >= at) {
            return secure;
        }
        dumps++;
        List<String> found = SecureWindows.visibleSecure(dump.windows());
        this.secure = Collections.unmodifiableList(new ArrayList<>(found));
        this.signature = signature;
        this.at = nowMs;
        return secure;
    }

    /** Whether the last answer, for exactly this signature, had a secure window. */
    public boolean knownSecure(String signature) {
        return signature.equals(this.signature) && !secure.isEmpty();
    }

    /** How many dumps ran (the measured cost). */
    public int dumps() {
        return dumps;
    }
}
