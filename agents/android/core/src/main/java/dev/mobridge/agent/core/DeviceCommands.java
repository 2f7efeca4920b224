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

    /** The first API level of READ_MEDIA_IMAGES and POST_NOTIFICATIONS (Android 13). */
    public static final int MEDIA_PERMISSIONS_SDK = 33;
    /** What {@link #androidPermission(String, int)} answers for a name with no permission there. */
    public static final String NOT_A_RUNTIME_PERMISSION = "-";

    /** The Android runtime permission a mobridge name stands for, or null when unknown. */
    public static String androidPermission(String name) {
        return androidPermission(name, MEDIA_PERMISSIONS_SDK);
    }

    /**
     * The permission behind {@code name} on API level {@code sdk} (issue 34: "photos" and
     * "notifications" named the API 33 permissions on every level): photos are
     * READ_EXTERNAL_STORAGE before API 33; notifications are no runtime permission before it
     * ({@link #NOT_A_RUNTIME_PERMISSION}); null when the name is unknown.
     */
    public static String androidPermission(String name, int sdk) {
        boolean old = sdk > 0 && sdk < MEDIA_PERMISSIONS_SDK;
        if (old && name.equals("photos")) {
            return "android.permission.READ_EXTERNAL_STORAGE";
        }
        if (old && name.equals("notifications")) {
            return NOT_A_RUNTIME_PERMISSION;
        }
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
        return permission(action, appId, permission, MEDIA_PERMISSIONS_SDK);
    }

    /** The shell commands of {@code action} on {@code permission} at API level {@code sdk}. */
    public static List<String> permission(String action, String appId, String permission,
            int sdk) {
        String p = androidPermission(permission, sdk);
        if (NOT_A_RUNTIME_PERMISSION.equals(p)) {
            throw new IllegalArgumentException("'" + permission + "' is no runtime permission"
                    + " before Android 13 (API " + sdk + "): nothing to grant or revoke");
        }
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

    /**
     * Why a shell command failed, or null when it did not (issue 34: {@code
     * executeShellCommand} returns stdout only, and {@code pm} says nothing on success and
     * writes its failure to stderr, so an empty stdout proved nothing). {@code stderr} is null
     * where the platform cannot read it (before API 31); any text in it fails the command, as
     * does stdout that starts with a failure word of {@code pm}, {@code am} or {@code cmd}.
     */
    public static String shellFailure(String stdout, String stderr) {
        if (stderr != null && !stderr.trim().isEmpty()) {
            return firstLine(stderr);
        }
        String out = stdout == null ? "" : stdout;
        for (String line : out.split("\n")) {
            String t = line.trim();
            if (t.startsWith("Exception occurred") || t.startsWith("Error:") || t.startsWith("Error ")
                    || t.startsWith("Failure") || t.startsWith("Security exception")
                    || t.startsWith("java.lang.") || t.startsWith("Unknown package")
                    || t.startsWith("Bad argument") || t.startsWith("Operation not allowed")) {
                return firstLine(t);
            }
        }
        return null;
    }

    /**
     * Whether {@code permission} is granted to the app, from {@code dumpsys package APP}
     * ({@code android.permission.CAMERA: granted=true}); null when the dump does not list it.
     */
    public static Boolean permissionGranted(String dumpsys, String permission) {
        if (dumpsys == null) {
            return null;
        }
        Boolean found = null;
        for (String line : dumpsys.split("\n")) {
            String t = line.trim();
            if (t.startsWith(permission + ": granted=")) {
                boolean g = t.startsWith(permission + ": granted=true");
                found = found == null ? g : found || g; // runtime and install sections: any
            }
        }
        return found;
    }

    /**
     * Whether the permission is where {@code action} should have left it; null when so, else
     * the failure. Not listed counts as not granted.
     */
    public static String permissionCheck(String action, String permission, Boolean granted) {
        boolean want = action.equals("grant");
        boolean got = granted != null && granted;
        if (want == got) {
            return null;
        }
        return permission + " is " + (got ? "still granted" : "not granted") + " after " + action
                + " (the package manager did not apply it; is the permission declared by the app?)";
    }

    /** A shell as the device layer runs it: stdout, and stderr where readable (else null). */
    public interface Shell {
        String[] run(String command) throws Exception;
    }

    /**
     * Runs a permission change's commands and checks the result in {@code dumpsys package}:
     * ok only when every command reported no failure ({@link #shellFailure}) and the
     * permission is then where the change should have left it ({@link #permissionCheck}).
     */
    public static Outcome applyPermission(Shell shell, String appId, String androidPermission,
            List<String> commands) throws Exception {
        for (String command : commands) {
            String[] out = shell.run(command);
            String problem = shellFailure(out[0], out.length > 1 ? out[1] : null);
            if (problem != null) {
                return Outcome.failed(problem);
            }
        }
        String action = commands.get(0).startsWith("pm grant ") ? "grant" : "revoke";
        String dump = shell.run("dumpsys package " + appId)[0];
        String problem = permissionCheck(action, androidPermission,
                permissionGranted(dump, androidPermission));
        return problem == null ? Outcome.ok() : Outcome.failed(problem);
    }

    private static String firstLine(String text) {
        String t = text.trim();
        int nl = t.indexOf('\n');
        String line = nl < 0 ? t : t.substring(0, nl);
        return line.length() > 300 ? line.substring(0, 300) : line;
    }

    private static int clamp(double v, int limit) {
        int top = limit > 0 ? limit - 1 : Integer.MAX_VALUE;
        return (int) Math.max(0, Math.min(top, Math.round(v)));
    }
}
