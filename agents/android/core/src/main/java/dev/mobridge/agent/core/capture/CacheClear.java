package dev.mobridge.agent.core.capture;

/**
 * Clears the accessibility cache before a capture and says when it could not.
 *
 * <p>API 34 has a public {@code UiAutomation.clearCache()}. Before it, setting the automation's
 * service info again ({@code setServiceInfo(getServiceInfo())}, public since API 18) makes the
 * platform drop its cached nodes, as the UiAutomator2 server relies on; issue 34 replaced the
 * reflective call into the hidden {@code AccessibilityInteractionClient} (which the hidden-API
 * policy may refuse) by it. A refusal is not fatal (events refresh cached nodes in practice)
 * but captures can then show stale nodes, so it is reported: {@link #clear} returns a warning
 * for the capture's health ({@code warnings} of the raw tree), every capture while it lasts.
 */
public final class CacheClear {
    /** The first API level with the public clear. */
    public static final int PUBLIC_SDK = 34;

    /** The platform half. */
    public interface Platform {
        /** API 34+: {@code UiAutomation.clearCache()}; false when the platform refused. */
        boolean clearPublic();

        /**
         * Before API 34: {@code setServiceInfo(getServiceInfo())}; false or an exception when
         * the platform refused.
         */
        boolean resetServiceInfo() throws Exception;
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
            if (platform.resetServiceInfo()) {
                return null;
            }
            why = "it had no effect";
        } catch (Exception e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            why = cause.getClass().getSimpleName();
        }
        return "accessibility cache not cleared: UiAutomation.setServiceInfo failed (" + why
                + ", API " + sdkInt + "); nodes may be stale until UI events refresh them";
    }
}
