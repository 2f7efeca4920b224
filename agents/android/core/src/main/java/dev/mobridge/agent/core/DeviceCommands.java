package dev.mobridge.agent.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Pure plans of the device capabilities that run as shell commands or gestures: the Android
 * permission behind a mobridge permission name, the {@code pm} commands of a grant / revoke /
 * reset, the {@code cmd location} commands of a simulated location, and the two finger paths
 * of a pinch. The device layer runs them; nothing here touches a device.
 */
public final class DeviceCommands {
    public static final String TEST_PROVIDER = "gps";
    /** Steps per finger path of a pinch (the injector spreads them over its duration). */
    public static final int PINCH_STEPS = 10;

    private DeviceCommands() {}

    /** The Android runtime permission a mobridge name stands for, or null when unknown. */
    public static String androidPermission(String name) {
        switch (name) {
            case "camera":
                return "android.permission.CAMERA";
            case "microphone":
                return "android.permission.RECORD_AUDIO";
            case "location":
                return "android.permission.ACCESS_FINE_LOCATION";
            case "photos":
                return "android.permission.READ_MEDIA_IMAGES";
            case "contacts":
                return "android.permission.READ_CONTACTS";
            case "calendar":
                return "android.permission.READ_CALENDAR";
            case "notifications":
                return "android.permission.POST_NOTIFICATIONS";
            default:
                return null;
        }
    }

    /** The shell commands of {@code action} (grant, revoke, reset) on {@code permission}. */
    public static List<String> permission(String action, String appId, String permission) {
        String p = androidPermission(permission);
        if (p == null) {
            throw new IllegalArgumentException("unknown permission '" + permission + "'");
        }
        switch (action) {
            case "grant":
                return Arrays.asList("pm grant " + appId + " " + p);
            case "revoke":
                return Arrays.asList("pm revoke " + appId + " " + p);
            default: // reset: not granted, and asked again (the user's choice forgotten)
                return Arrays.asList("pm revoke " + appId + " " + p,
                        "pm clear-permission-flags " + appId + " " + p + " user-set user-fixed");
        }
    }

    /** Shell commands that simulate the location (or, with nulls, stop simulating it). */
    public static List<String> location(Double latitude, Double longitude) {
        List<String> out = new ArrayList<>();
        if (latitude == null || longitude == null) {
            out.add("cmd location providers remove-test-provider " + TEST_PROVIDER);
            return out;
        }
        out.add("appops set com.android.shell android:mock_location allow");
        out.add("cmd location providers add-test-provider " + TEST_PROVIDER);
        out.add("cmd location providers set-test-provider-enabled " + TEST_PROVIDER + " true");
        out.add(String.format(Locale.ROOT,
                "cmd location providers set-test-provider-location %s --location %.6f,%.6f",
                TEST_PROVIDER, latitude, longitude));
        return out;
    }

    /**
     * The two finger paths of a pinch around (cx, cy): horizontal, from {@code span} apart to
     * {@code span * scale} apart, clamped to the screen ({@code width} x {@code height}).
     */
    public static List<List<int[]>> pinch(int cx, int cy, int span, double scale, int width,
            int height) {
        List<int[]> left = new ArrayList<>();
        List<int[]> right = new ArrayList<>();
        for (int i = 0; i <= PINCH_STEPS; i++) {
            double half = span * (1 + (scale - 1) * i / PINCH_STEPS) / 2;
            left.add(new int[] {clamp(cx - half, width), clamp(cy, height)});
            right.add(new int[] {clamp(cx + half, width), clamp(cy, height)});
        }
        return Arrays.asList(left, right);
    }

    /** Two fingers touching at once, {@code span} apart around (cx, cy). */
    public static List<List<int[]>> twoFingerTap(int cx, int cy, int span, int width,
            int height) {
        int[] a = {clamp(cx - span / 2.0, width), clamp(cy, height)};
        int[] b = {clamp(cx + span / 2.0, width), clamp(cy, height)};
        return Arrays.asList(Arrays.asList(a), Arrays.asList(b));
    }

    private static int clamp(double v, int limit) {
        int top = limit > 0 ? limit - 1 : Integer.MAX_VALUE;
        return (int) Math.max(0, Math.min(top, Math.round(v)));
    }
}
