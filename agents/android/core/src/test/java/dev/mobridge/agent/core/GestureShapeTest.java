package dev.mobridge.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import dev.mobridge.agent.core.link.HubMessage;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.Test;

/** One pointer only: taps take one point, a swipe one path; nothing is a second finger. */
public class GestureShapeTest {
    static HubMessage.Gesture g(String kind, int points) {
        List<int[]> ps = Collections.nCopies(points, new int[] {10, 20});
        return new HubMessage.Gesture(1, kind, ps, 0);
    }

    @Test
    public void tapsTakeExactlyOnePoint() {
        for (String kind : Arrays.asList("tap", "long_press", "double_tap")) {
            assertNull(AgentSession.gestureProblem(g(kind, 1)));
            assertEquals(kind + " takes exactly one point",
                    AgentSession.gestureProblem(g(kind, 2)));
        }
    }

    @Test
    public void aSwipeIsOnePathOfAtLeastTwoPoints() {
        assertNull(AgentSession.gestureProblem(g("swipe", 2)));
        assertNull(AgentSession.gestureProblem(g("swipe", 5)));
        assertEquals("swipe needs at least two points", AgentSession.gestureProblem(g("swipe", 1)));
    }
}
