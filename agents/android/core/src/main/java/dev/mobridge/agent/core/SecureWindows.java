package dev.mobridge.agent.core;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds visible windows with FLAG_SECURE in the text of {@code dumpsys window windows}.
 *
 * <p>Accessibility APIs do not expose FLAG_SECURE, and a screenshot of a secure window is simply
 * black; the window manager's dump is the one place the flag is visible to the shell user. The
 * parse is conservative: a window block whose flags ({@code fl=...}) contain the token SECURE
 * counts unless the block positively says it is not shown (isVisible/isOnScreen false).
 */
public final class SecureWindows {
    private SecureWindows() {}

    /** Names (as the dump prints them) of the visible secure windows; empty when none. */
    public static List<String> visibleSecure(String dump) {
        List<String> out = new ArrayList<>();
        String name = null;
        boolean secure = false;
        boolean hidden = false;
        for (String raw : dump.split("\n")) {
            String line = raw.trim();
            if (line.startsWith("Window #") && line.contains("Window{")) {
                if (name != null && secure && !hidden) {
                    out.add(name);
                }
                name = windowName(line);
                secure = false;
                hidden = false;
                continue;
            }
            if (name == null) {
                continue;
            }
            int fl = flagsStart(line);
            if (fl >= 0) {
                for (String token : line.substring(fl).split("\\s+")) {
                    if (token.contains("=") && !token.startsWith("fl=")) {
                        break;
                    }
                    String flag = (token.startsWith("fl=") ? token.substring(3) : token)
                            .replace("}", "");
                    if (flag.equals("SECURE")) {
                        secure = true;
                    }
                }
            }
            if (line.contains("isVisible=false") || line.contains("isOnScreen=false")) {
                hidden = true;
            }
        }
        if (name != null && secure && !hidden) {
            out.add(name);
        }
        return out;
    }

    private static int flagsStart(String line) {
        if (line.startsWith("fl=")) {
            return 0;
        }
        int i = line.indexOf(" fl=");
        return i < 0 ? -1 : i + 1;
    }

    private static String windowName(String line) {
        int open = line.indexOf("Window{");
        int close = line.indexOf('}', open);
        String inner = close < 0 ? line.substring(open + 7) : line.substring(open + 7, close);
        String[] parts = inner.split(" ");
        return parts[parts.length - 1];
    }
}
