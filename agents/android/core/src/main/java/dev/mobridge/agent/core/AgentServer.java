package dev.mobridge.agent.core;

import dev.mobridge.agent.core.ws.TokenCheck;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Serves the agent link over accepted transports; the accept loop belongs to the platform
 * (a ServerSocket on the host, a LocalServerSocket on a device) and calls {@link #serve} on a
 * thread per connection.
 *
 * <p>Invariants: every backend call of every session runs on the one UI thread owned here, so a
 * backend never sees concurrent calls; at most one hub session is live — a newer authenticated
 * connection supersedes the older (a hub reconnecting after a dead link must not be locked out).
 */
public final class AgentServer {
    final UiBackend backend;
    final TokenCheck tokens;
    final AgentConfig config;
    final Clock clock;
    final AgentLog log;
    final ExecutorService uiThread;
    private AgentSession current;
    private boolean stopped;

    public AgentServer(UiBackend backend, TokenCheck tokens, AgentConfig config, Clock clock,
            AgentLog log) {
        this.backend = backend;
        this.tokens = tokens;
        this.config = config;
        this.clock = clock;
        this.log = log;
        this.uiThread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "mobridge-ui");
            t.setDaemon(true);
            return t;
        });
    }

    /** Runs one connection to its end (blocking). Never throws. */
    public void serve(Transport transport) {
        AgentSession session = new AgentSession(this, transport);
        try {
            session.run();
        } catch (Throwable t) {
            log.warn("session ended with an error", t);
        } finally {
            session.shutdown();
            synchronized (this) {
                if (current == session) {
                    current = null;
                }
            }
        }
    }

    /** Makes {@code session} the live one; false when the server is stopping. */
    synchronized boolean activate(AgentSession session) {
        if (stopped) {
            return false;
        }
        AgentSession previous = current;
        current = session;
        if (previous != null) {
            previous.supersede();
        }
        return true;
    }

    synchronized boolean isCurrent(AgentSession session) {
        return current == session;
    }

    /** Tells the live hub the agent is stopping, closes it, and refuses new sessions. */
    public void stop(String reason) {
        AgentSession s;
        synchronized (this) {
            stopped = true;
            s = current;
            current = null;
        }
        if (s != null) {
            s.stop(reason);
        }
        uiThread.shutdownNow();
    }
}
