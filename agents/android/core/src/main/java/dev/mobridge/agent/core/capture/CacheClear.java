package dev.mobridge.agent.core.capture;

/**
 * Clears the accessibility cache before a capture and says when it could not.
 *
 * <p>API 34 has a public {@code UiAutomation.clearCache()}. Before it, the cache lives in the
 * hidden {@code AccessibilityInteractionClient}, reached by reflection; the hidden-API policy
 * may refuse that (NoSuchMethodException, IllegalAccessException, or a silent no-op reported as
 * false). Such a refusal is not fatal (events refresh cached nodes in practice) but captures can
 * then show stale nodes, so it is reported: {@link #clear} returns a warning for the capture's
 * health ({@code warnings} of the raw tree), every capture while it lasts.
 */
public final class CacheClear {
    /** The first API level with the public clear. */
    public static final int PUBLIC_SDK = 34;

    /** The platform half. */
    public interface Platform {
        /** API 34+: {@code UiAutomation.clearCache()}; false when the platform refused. */
        boolean clearPublic();

        /** Before API 34: the reflective clear; false or an exception when refused. */
        boolean clearReflective() throws Exception;
    }

    private CacheClear() {}

    /** Clears; null when done, else the warning to report with the capture. */
    public static String clear(int sdkInt, Platform platform) {
        if (sdkInt >= PUBLIC_SDK) {
            return platform.clearPublic() ? null
                    : "accessibility cache not cleared: UiAutomation.clearCache() returned false";
        }
        String why;
        try {
            if (platform.clearReflective()) {
                return null;
            }
            why = "it had no effect";
        } catch (Exception e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            why = cause.getClass().getSimpleName();
        }
        return "accessibility cache not cleared: the hidden-API policy blocked"
                + " AccessibilityInteractionClient.clearCache (" + why + ", API " + sdkInt
                + "); nodes may be stale until UI events refresh them";
    }
}
