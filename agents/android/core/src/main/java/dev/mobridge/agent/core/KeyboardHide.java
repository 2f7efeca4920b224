package dev.mobridge.agent.core;

import dev.mobridge.agent.core.link.GlobalAction;
import dev.mobridge.agent.core.link.RawTree;
import java.util.concurrent.Callable;

/**
 * Hides the on-screen keyboard the way appium-adb does (issue 34: BACK was sent unchecked, and
 * BACK leaves the screen when the keyboard is already gone): ESCAPE first (most input methods
 * close on it, and it does nothing else), then BACK only while the keyboard still shows, each
 * followed by a check; still shown after both is a failure, never a success. Whether it shows is
 * the input method manager's {@code mInputShown} ({@code dumpsys input_method}) where the
 * backend can read it, else an input-method window in a fresh capture.
 */
public final class KeyboardHide {
    private KeyboardHide() {}

    /** Whether {@code dumpsys input_method} says the keyboard shows; null when it does not say. */
    public static Boolean inputShown(String dumpsys) {
        if (dumpsys == null) {
            return null;
        }
        for (String line : dumpsys.split("\n")) {
            int at = line.indexOf("mInputShown=");
            if (at >= 0) {
                return line.startsWith("true", at + "mInputShown=".length());
            }
        }
        return null;
    }

    /** Hides the keyboard of {@code backend}; {@code capture} takes a fresh capture. */
    public static Outcome hide(UiBackend backend, Callable<RawTree> capture) throws Exception {
        if (!shown(backend, capture)) {
            return Outcome.ok();
        }
        backend.key("ESCAPE");
        if (!shown(backend, capture)) {
            return Outcome.ok();
        }
        backend.globalAction(GlobalAction.BACK);
        if (!shown(backend, capture)) {
            return Outcome.ok();
        }
        return Outcome.failed("the keyboard still shows after ESCAPE and BACK; recovery: tap the"
                + " app's own close or done button, then retry");
    }

    private static boolean shown(UiBackend backend, Callable<RawTree> capture) throws Exception {
        Boolean ime = backend.inputShown();
        return ime != null ? ime : Alerts.keyboardShown(capture.call());
    }
}
