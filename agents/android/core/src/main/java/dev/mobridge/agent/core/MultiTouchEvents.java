package dev.mobridge.agent.core;

import java.util.ArrayList;
import java.util.List;

/**
 * The motion events of several fingers touching at once (a pinch, a two-finger tap), planned
 * without a device: finger 0 goes down ({@code ACTION_DOWN}), every other finger follows with
 * {@code ACTION_POINTER_DOWN} (its pointer index shifted into the action), all fingers move
 * together along their paths ({@code ACTION_MOVE}, every pointer in each event), the later
 * fingers lift in reverse order ({@code ACTION_POINTER_UP}) and finger 0 lifts last
 * ({@code ACTION_UP}).
 *
 * <p>The action values are the platform's (android.view.MotionEvent in the API 26 listing:
 * ACTION_DOWN 0, ACTION_UP 1, ACTION_MOVE 2, ACTION_CANCEL 3, ACTION_POINTER_DOWN 5,
 * ACTION_POINTER_UP 6,
 * ACTION_POINTER_INDEX_SHIFT 8); core cannot import android.*, so they are repeated here and
 * the device layer passes {@link Event#action} to {@code MotionEvent.obtain} unchanged.
 *
 * <p>Invariants of {@link #plan}: pointer ids are the finger indexes; an event's
 * {@code pointers} hold the fingers that are down (ids 0..n-1, in order) with the position of
 * each at that moment; times never decrease, the downs are at 0 and the ups at
 * {@code durationMs}. The caller injects the events in order, each no earlier than the gesture's
 * down time plus {@link Event#atMs}; when an injection fails after fingers went down it stops
 * and sends {@link #cancel} of the last event that went through, so no finger stays down.
 */
public final class MultiTouchEvents {
    public static final int ACTION_DOWN = 0;
    public static final int ACTION_UP = 1;
    public static final int ACTION_MOVE = 2;
    public static final int ACTION_CANCEL = 3;
    public static final int ACTION_POINTER_DOWN = 5;
    public static final int ACTION_POINTER_UP = 6;
    public static final int ACTION_POINTER_INDEX_SHIFT = 8;
    /** Fingers one gesture may use (a touchscreen reports ten at most). */
    public static final int MAX_FINGERS = 10;
    /** Points one finger path may have (each becomes a move event). */
    public static final int MAX_POINTS = 1000;

    private MultiTouchEvents() {}

    /** One motion event: the action (index shifted in), its time and the fingers down. */
    public static final class Event {
        public final int action;
        /** Milliseconds after the gesture's down time. */
        public final long atMs;
        /** {x, y} of each finger down, indexed by pointer id. */
        public final int[][] pointers;

        Event(int action, long atMs, int[][] pointers) {
            this.action = action;
            this.atMs = atMs;
            this.pointers = pointers;
        }
    }

    /**
     * ACTION_CANCEL for the fingers still down after {@code last} (the last event injected),
     * where they were; null when none is (after ACTION_UP).
     */
    public static Event cancel(Event last) {
        int masked = last.action & 0xff;
        int down = last.pointers.length - (masked == ACTION_POINTER_UP ? 1 : 0);
        if (masked == ACTION_UP || down < 1) {
            return null;
        }
        int[][] at = new int[down][];
        System.arraycopy(last.pointers, 0, at, 0, down);
        return new Event(ACTION_CANCEL, last.atMs, at);
    }

    /** {@code base} (POINTER_DOWN or POINTER_UP) for the pointer at {@code index}. */
    public static int pointerAction(int base, int index) {
        return base | (index << ACTION_POINTER_INDEX_SHIFT);
    }

    /**
     * The events of {@code fingers} (each a path of at least one {x, y}) over {@code durationMs}.
     * A shorter path holds its last point while the longer ones move.
     *
     * @throws IllegalArgumentException no finger, more than {@link #MAX_FINGERS}, an empty or
     *     too long path, a point that is not {x, y}, or a negative duration
     */
    public static List<Event> plan(List<List<int[]>> fingers, long durationMs) {
        int n = fingers == null ? 0 : fingers.size();
        if (n < 1 || n > MAX_FINGERS) {
            throw new IllegalArgumentException("multi-touch needs 1 to " + MAX_FINGERS
                    + " fingers, not " + n);
        }
        if (durationMs < 0) {
            throw new IllegalArgumentException("multi-touch duration is negative");
        }
        int points = 0;
        for (List<int[]> path : fingers) {
            if (path == null || path.isEmpty() || path.size() > MAX_POINTS) {
                throw new IllegalArgumentException("a finger path has 1 to " + MAX_POINTS
                        + " points");
            }
            for (int[] p : path) {
                if (p == null || p.length != 2) {
                    throw new IllegalArgumentException("a finger point is {x, y}");
                }
            }
            points = Math.max(points, path.size());
        }
        List<Event> out = new ArrayList<>();
        out.add(new Event(ACTION_DOWN, 0, at(fingers, 1, 0)));
        for (int i = 1; i < n; i++) {
            out.add(new Event(pointerAction(ACTION_POINTER_DOWN, i), 0, at(fingers, i + 1, 0)));
        }
        int moves = points - 1;
        for (int k = 1; k <= moves; k++) {
            out.add(new Event(ACTION_MOVE, durationMs * k / moves, at(fingers, n, k)));
        }
        for (int i = n - 1; i >= 1; i--) {
            out.add(new Event(pointerAction(ACTION_POINTER_UP, i), durationMs,
                    at(fingers, i + 1, points - 1)));
        }
        out.add(new Event(ACTION_UP, durationMs, at(fingers, 1, points - 1)));
        return out;
    }

    /** The first {@code count} fingers at step {@code k} (a path's last point once it ends). */
    private static int[][] at(List<List<int[]>> fingers, int count, int k) {
        int[][] out = new int[count][];
        for (int i = 0; i < count; i++) {
            List<int[]> path = fingers.get(i);
            int[] p = path.get(Math.min(k, path.size() - 1));
            out[i] = new int[] {p[0], p[1]};
        }
        return out;
    }
}
