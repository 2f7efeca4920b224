package dev.mobridge.agent.core.link;

/** A message that is not valid JSON or does not match the agent-link types exactly. */
public final class BadMessageException extends Exception {
    private static final long serialVersionUID = 1L;

    public BadMessageException(String message) {
        super(message);
    }
}
