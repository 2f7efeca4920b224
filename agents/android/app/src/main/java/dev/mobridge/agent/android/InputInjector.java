package dev.mobridge.agent.android;

import android.app.UiAutomation;
import android.os.SystemClock;
import android.view.InputDevice;
import android.view.KeyCharacterMap;
import android.view.KeyEvent;
import android.view.MotionEvent;
import dev.mobridge.agent.core.MultiTouchEvents;
import java.util.List;

/**
 * Touch and key input injected through UiAutomation (synchronously, so the event has been
 * dispatched when a method returns). Used only for gestures the hub asked for and for fallbacks.
 */
final class InputInjector {
    private static final long STEP_MS = 10;
    private final UiAutomation automation;

    InputInjector(UiAutomation automation) {
        this.automation = automation;
    }

    boolean tap(int x, int y, long holdMs) {
        long down = SystemClock.uptimeMillis();
        if (!touch(down, down, MotionEvent.ACTION_DOWN, x, y)) {
            return false;
        }
        sleep(holdMs);
        return touch(down, SystemClock.uptimeMillis(), MotionEvent.ACTION_UP, x, y);
    }

    /** Two taps closer together than the platform's double-tap timeout (300 ms). */
    boolean doubleTap(int x, int y) {
        if (!tap(x, y, 40)) {
            return false;
        }
        sleep(90);
        return tap(x, y, 40);
    }

    /** A path through {@code points} (at least two) spread over {@code durationMs}. */
    boolean swipe(List<int[]> points, long durationMs) {
        long down = SystemClock.uptimeMillis();
        int[] first = points.get(0);
        if (!touch(down, down, MotionEvent.ACTION_DOWN, first[0], first[1])) {
            return false;
        }
        int segments = points.size() - 1;
        long perSegment = Math.max(STEP_MS, durationMs / segments);
        for (int s = 0; s < segments; s++) {
            int[] a = points.get(s);
            int[] b = points.get(s + 1);
            long steps = Math.max(1, perSegment / STEP_MS);
            for (long i = 1; i <= steps; i++) {
                float f = (float) i / steps;
                sleep(STEP_MS);
                if (!touch(down, SystemClock.uptimeMillis(), MotionEvent.ACTION_MOVE,
                        a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f)) {
                    return false;
                }
            }
        }
        int[] last = points.get(points.size() - 1);
        return touch(down, SystemClock.uptimeMillis(), MotionEvent.ACTION_UP, last[0], last[1]);
    }

    /**
     * Several fingers at once along their paths (the events {@link MultiTouchEvents#plan}
     * builds: DOWN, POINTER_DOWNs, MOVEs with every pointer, POINTER_UPs, UP), each injected
     * no earlier than its planned time. False when an injection failed; the remaining events
     * are not sent and, when fingers were down, an ACTION_CANCEL lifts them (best effort).
     */
    boolean multiTouch(List<List<int[]>> fingers, long durationMs) {
        List<MultiTouchEvents.Event> events = MultiTouchEvents.plan(fingers, durationMs);
        long down = SystemClock.uptimeMillis();
        MultiTouchEvents.Event sent = null;
        for (MultiTouchEvents.Event e : events) {
            long wait = down + e.atMs - SystemClock.uptimeMillis();
            if (wait > 0) {
                sleep(wait);
            }
            if (!pointers(down, SystemClock.uptimeMillis(), e.action, e.pointers)) {
                MultiTouchEvents.Event c = sent == null ? null : MultiTouchEvents.cancel(sent);
                if (c != null) {
                    pointers(down, SystemClock.uptimeMillis(), c.action, c.pointers);
                }
                return false;
            }
            sent = e;
        }
        return true;
    }

    private boolean pointers(long downTime, long eventTime, int action, int[][] at) {
        int n = at.length;
        MotionEvent.PointerProperties[] props = new MotionEvent.PointerProperties[n];
        MotionEvent.PointerCoords[] coords = new MotionEvent.PointerCoords[n];
        for (int i = 0; i < n; i++) {
            props[i] = new MotionEvent.PointerProperties();
            props[i].id = i;
            props[i].toolType = MotionEvent.TOOL_TYPE_FINGER;
            coords[i] = new MotionEvent.PointerCoords();
            coords[i].x = at[i][0];
            coords[i].y = at[i][1];
            coords[i].pressure = 1f;
            coords[i].size = 1f;
        }
        MotionEvent e = MotionEvent.obtain(downTime, eventTime, action, n, props, coords, 0, 0,
                1f, 1f, 0, 0, InputDevice.SOURCE_TOUCHSCREEN, 0);
        try {
            return automation.injectInputEvent(e, true);
        } finally {
            e.recycle();
        }
    }

    boolean key(int keyCode, int metaState) {
        long now = SystemClock.uptimeMillis();
        KeyEvent down = new KeyEvent(now, now, KeyEvent.ACTION_DOWN, keyCode, 0, metaState);
        KeyEvent up = new KeyEvent(now, SystemClock.uptimeMillis(), KeyEvent.ACTION_UP, keyCode,
                0, metaState);
        return automation.injectInputEvent(down, true) && automation.injectInputEvent(up, true);
    }

    /** Types {@code text} with the virtual keyboard's key map; false when a char has no keys. */
    boolean type(String text) {
        if (text.isEmpty()) {
            return true;
        }
        KeyCharacterMap map = KeyCharacterMap.load(KeyCharacterMap.VIRTUAL_KEYBOARD);
        KeyEvent[] events = map.getEvents(text.toCharArray());
        if (events == null) {
            return false;
        }
        for (KeyEvent e : events) {
            if (!automation.injectInputEvent(e, true)) {
                return false;
            }
        }
        return true;
    }

    /** Selects everything in the focused field and deletes it. */
    boolean clearFocused() {
        return key(KeyEvent.KEYCODE_A, KeyEvent.META_CTRL_ON) && key(KeyEvent.KEYCODE_DEL, 0);
    }

    private boolean touch(long downTime, long eventTime, int action, float x, float y) {
        MotionEvent e = MotionEvent.obtain(downTime, eventTime, action, x, y, 0);
        e.setSource(InputDevice.SOURCE_TOUCHSCREEN);
        try {
            return automation.injectInputEvent(e, true);
        } finally {
            e.recycle();
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
