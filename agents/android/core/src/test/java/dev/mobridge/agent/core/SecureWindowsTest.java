package dev.mobridge.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import java.util.Collections;
import org.junit.Test;

/** Synthetic dumps shaped like {@code dumpsys window windows} of Android 10-14. */
public class SecureWindowsTest {
    static final String DUMP = String.join("\n",
            "WINDOW MANAGER WINDOWS (dumpsys window windows)",
            "  Window #0 Window{5b6e2f1 u0 com.android.systemui.ImageWallpaper}:",
            "    mAttrs={(0,0)(fillxfill) ty=WALLPAPER fmt=RGBX_8888",
            "      fl=NOT_FOCUSABLE NOT_TOUCHABLE LAYOUT_IN_SCREEN",
            "    isOnScreen=true",
            "  Window #1 Window{a1 u0 com.bank.app/com.bank.app.LoginActivity}:",
            "    mAttrs={(0,0)(fillxfill) sim={adjust=resize} ty=BASE_APPLICATION",
            "      fl=LAYOUT_IN_SCREEN LAYOUT_INSET_DECOR SECURE SPLIT_TOUCH HARDWARE_ACCELERATED",
            "      pfl=NO_MOVE_ANIMATION",
            "    isOnScreen=true",
            "    isVisible=true",
            "  Window #2 Window{b2 u0 com.notes/com.notes.Main}:",
            "    mAttrs={(0,0)(fillxfill) ty=BASE_APPLICATION fl=SECURE HARDWARE_ACCELERATED",
            "    isOnScreen=false",
            "  Window #3 Window{c3 u0 com.other/com.other.Main}:",
            "    mAttrs={(0,0)(fillxfill) ty=BASE_APPLICATION",
            "      fl=LAYOUT_IN_SCREEN pfl=SECURE_LOOKING_NAME",
            "    isVisible=true");

    @Test
    public void findsOnlyVisibleWindowsWithTheSecureFlag() {
        assertEquals(Collections.singletonList("com.bank.app/com.bank.app.LoginActivity"),
                SecureWindows.visibleSecure(DUMP));
    }

    @Test
    public void inlineFlagsCountAndEmptyDumpsHaveNone() {
        String inline = "  Window #5 Window{d u0 x.y/x.y.A}:\n    mAttrs={ty=APP fl=SECURE}\n";
        assertEquals(Arrays.asList("x.y/x.y.A"), SecureWindows.visibleSecure(inline));
        assertTrue(SecureWindows.visibleSecure("").isEmpty());
    }
}
