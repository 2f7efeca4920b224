package dev.mobridge.agent.core;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.Test;

/** The multi-pointer event sequence the device layer injects for a pinch or two-finger tap. */
public class MultiTouchEventsTest {
    private static int[] actions(List<MultiTouchEvents.Event> events) {
        int[] out = new int[events.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = events.get(i).action;
        }
        return out;
    }

    @Test
    public void pinchIsDownPointerDownMovesPointerUpUp() {
        List<List<int[]>> fingers = DeviceCommands.pinch(500, 800, 200, 2.0, 1080, 1920);
        List<MultiTouchEvents.Event> ev = MultiTouchEvents.plan(fingers, 400);
        int moves = DeviceCommands.PINCH_STEPS;
        assertEquals(2 + moves + 2, ev.size());
        assertEquals(MultiTouchEvents.ACTION_DOWN, ev.get(0).action);
        // POINTER_DOWN (5) for pointer index 1: 5 | 1 << 8 = 0x105, the platform's value.
        assertEquals(0x105, ev.get(1).action);
        for (int k = 2; k < 2 + moves; k++) {
            assertEquals(MultiTouchEvents.ACTION_MOVE, ev.get(k).action);
            assertEquals(2, ev.get(k).pointers.length);
        }
        assertEquals(0x106, ev.get(ev.size() - 2).action);
        assertEquals(MultiTouchEvents.ACTION_UP, ev.get(ev.size() - 1).action);
        // One pointer at the first and last event, both in between.
        assertEquals(1, ev.get(0).pointers.length);
        assertEquals(2, ev.get(1).pointers.length);
        assertEquals(2, ev.get(ev.size() - 2).pointers.length);
        assertEquals(1, ev.get(ev.size() - 1).pointers.length);
        // The fingers start 200 apart and end 400 apart (a zoom in), around the centre.
        assertArrayEquals(new int[] {400, 800}, ev.get(1).pointers[0]);
        assertArrayEquals(new int[] {600, 800}, ev.get(1).pointers[1]);
        int[][] last = ev.get(ev.size() - 2).pointers;
        assertArrayEquals(new int[] {300, 800}, last[0]);
        assertArrayEquals(new int[] {700, 800}, last[1]);
        assertArrayEquals(new int[] {300, 800}, ev.get(ev.size() - 1).pointers[0]);
    }

    @Test
    public void timesRiseFromZeroToTheDuration() {
        List<MultiTouchEvents.Event> ev = MultiTouchEvents.plan(
                DeviceCommands.pinch(500, 800, 300, 0.5, 0, 0), 250);
        long prev = 0;
        for (MultiTouchEvents.Event e : ev) {
            assertTrue(e.atMs >= prev);
            prev = e.atMs;
        }
        assertEquals(0, ev.get(0).atMs);
        assertEquals(0, ev.get(1).atMs);
        assertEquals(250, ev.get(ev.size() - 3).atMs); // the last move
        assertEquals(250, ev.get(ev.size() - 1).atMs);
        // A zoom out: the fingers come closer.
        int[][] end = ev.get(ev.size() - 2).pointers;
        assertEquals(150, end[1][0] - end[0][0]);
    }

    @Test
    public void twoFingerTapHasNoMoves() {
        List<MultiTouchEvents.Event> ev = MultiTouchEvents.plan(
                DeviceCommands.twoFingerTap(100, 100, 80, 1080, 1920), 60);
        assertArrayEquals(new int[] {0, 0x105, 0x106, 1}, actions(ev));
        assertEquals(60, ev.get(2).atMs);
        assertArrayEquals(new int[] {60, 100}, ev.get(1).pointers[0]);
        assertArrayEquals(new int[] {140, 100}, ev.get(1).pointers[1]);
    }

    @Test
    public void threeFingersLiftInReverseOrderAndShortPathsHold() {
        List<List<int[]>> fingers = new ArrayList<>();
        fingers.add(Arrays.asList(new int[] {0, 0}, new int[] {10, 0}, new int[] {20, 0}));
        fingers.add(Collections.singletonList(new int[] {50, 50}));
        fingers.add(Arrays.asList(new int[] {90, 0}, new int[] {80, 0}));
        List<MultiTouchEvents.Event> ev = MultiTouchEvents.plan(fingers, 100);
        assertArrayEquals(new int[] {0, 0x105, 0x205, 2, 2, 0x206, 0x106, 1}, actions(ev));
        assertEquals(50, ev.get(3).atMs);
        int[][] second = ev.get(4).pointers;
        assertArrayEquals(new int[] {20, 0}, second[0]);
        assertArrayEquals(new int[] {50, 50}, second[1]);
        assertArrayEquals(new int[] {80, 0}, second[2]);
        assertEquals(3, ev.get(5).pointers.length);
        assertEquals(2, ev.get(6).pointers.length);
    }

    @Test
    public void aCancelKeepsTheFingersOfTheLastEventSent() {
        List<MultiTouchEvents.Event> ev = MultiTouchEvents.plan(
                DeviceCommands.pinch(500, 800, 200, 2.0, 0, 0), 400);
        MultiTouchEvents.Event c = MultiTouchEvents.cancel(ev.get(4));
        assertEquals(3, c.action);
        assertEquals(ev.get(4).atMs, c.atMs);
        assertEquals(2, c.pointers.length);
        assertArrayEquals(ev.get(4).pointers[1], c.pointers[1]);
        // After the second finger lifted only the first is cancelled; after UP nothing is.
        assertEquals(1, MultiTouchEvents.cancel(ev.get(ev.size() - 2)).pointers.length);
        assertEquals(null, MultiTouchEvents.cancel(ev.get(ev.size() - 1)));
    }

    @Test
    public void badInputIsRefused() {
        List<List<int[]>> none = new ArrayList<>();
        List<List<int[]>> emptyPath = new ArrayList<>();
        emptyPath.add(new ArrayList<int[]>());
        List<List<int[]>> eleven = new ArrayList<>();
        for (int i = 0; i < 11; i++) {
            eleven.add(Collections.singletonList(new int[] {i, i}));
        }
        List<List<int[]>> badPoint = new ArrayList<>();
        badPoint.add(Collections.singletonList(new int[] {1}));
        for (List<List<int[]>> f : Arrays.asList(none, emptyPath, eleven, badPoint)) {
            try {
                MultiTouchEvents.plan(f, 100);
                fail("accepted " + f.size() + " fingers");
            } catch (IllegalArgumentException expected) {
                assertTrue(expected.getMessage().contains("finger"));
            }
        }
        try {
            MultiTouchEvents.plan(DeviceCommands.twoFingerTap(1, 1, 2, 0, 0), -1);
            fail("accepted a negative duration");
        } catch (IllegalArgumentException expected) {
            assertTrue(expected.getMessage().contains("negative"));
        }
    }
}
