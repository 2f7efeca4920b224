package dev.mobridge.agent.core;

/**
 * Where the agent writes diagnostics (stderr on the host, logcat on a device). Callers never pass
 * tokens, typed text or node texts: only types, ids, counts and exception classes.
 */
public interface AgentLog {
    void info(String message);

    void warn(String message, Throwable error);

    AgentLog STDERR = new AgentLog() {
        @Override
        public void info(String message) {
            System.err.println("agent: " + message);
        }

        @Override
        public void warn(String message, Throwable error) {
            System.err.println("agent: WARN " + message
                    + (error == null ? "" : " (" + error.getClass().getSimpleName() + ")"));
        }
    };
}
