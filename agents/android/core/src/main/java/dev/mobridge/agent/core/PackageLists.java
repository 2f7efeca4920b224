package dev.mobridge.agent.core;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Reading the package manager's shell output and checking what goes into a shell command:
 * every app id and path the agent passes to {@code pm} / {@code am} matches these patterns
 * first, so no hub-supplied text is ever interpreted by the shell.
 */
public final class PackageLists {
    public static final String STAGED_DIR = "/data/local/tmp/";
    private static final Pattern PACKAGE =
            Pattern.compile("[A-Za-z][A-Za-z0-9_]*(\\.[A-Za-z][A-Za-z0-9_]*)+");
    private static final Pattern STAGED = Pattern.compile("/data/local/tmp/[A-Za-z0-9._-]{1,128}");

    private PackageLists() {}

    /** The package names of {@code pm list packages} output ({@code package:<name>} lines). */
    public static List<String> parse(String output) {
        List<String> names = new ArrayList<>();
        for (String line : output.split("\n")) {
            String t = line.trim();
            if (t.startsWith("package:")) {
                String name = t.substring("package:".length());
                if (packageName(name) && !names.contains(name)) {
                    names.add(name);
                }
            }
        }
        return names;
    }

    public static boolean packageName(String name) {
        return name != null && name.length() <= 255 && PACKAGE.matcher(name).matches();
    }

    /** A path the hub's device layer stages packages at: under /data/local/tmp, no "..". */
    public static boolean stagedPath(String path) {
        return path != null && STAGED.matcher(path).matches() && !path.contains("..");
    }

    /** The first line of a command's output, at most 300 characters (for a failure message). */
    public static String first(String output) {
        String line = output.trim().split("\n", 2)[0];
        return line.length() > 300 ? line.substring(0, 300) : line;
    }
}
