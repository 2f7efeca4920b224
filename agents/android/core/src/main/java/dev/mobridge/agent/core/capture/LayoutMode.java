package dev.mobridge.agent.core.capture;

/**
 * Which views a capture includes.
 *
 * <p>{@link #FULL} (the default, the agent's behaviour so far): every view, including layout
 * containers the app marked not important for accessibility (the service flag
 * FLAG_INCLUDE_NOT_IMPORTANT_VIEWS); screen markers such as {@code __screen_login} sit on such
 * containers. {@link #COMPRESSED}: only important views (the UiAutomator2 server's default
 * "compressed layout"), a smaller tree. Chosen per agent start: the instrumentation argument
 * {@code -e layout full|compressed}, or {@code --layout} in host mode.
 */
public enum LayoutMode {
    FULL,
    COMPRESSED;

    /** The mode named {@code arg} (null or empty: FULL). */
    public static LayoutMode parse(String arg) {
        if (arg == null || arg.isEmpty() || arg.equals("full")) {
            return FULL;
        }
        if (arg.equals("compressed")) {
            return COMPRESSED;
        }
        throw new IllegalArgumentException("layout is full or compressed, not " + arg);
    }

    /** Whether the service asks for views not important for accessibility. */
    public boolean includeNotImportantViews() {
        return this == FULL;
    }
}
