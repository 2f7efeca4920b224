package dev.mobridge.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/** Debounce timing with an injected clock: quiet 100 ms, cap 500 ms, timer 2000 ms. */
public class ChangeDebouncerTest {
    private final ChangeDebouncer d = new ChangeDebouncer(100, 500, 2000, 0);

    @Test
    public void singleEventFiresStableAfterTheQuietPeriod() {
        d.onEvent(1000);
        assertEquals(1100, d.deadline());
        assertNull(d.poll(1050));
        assertNull(d.poll(1099));
        ChangeDebouncer.Fire f = d.poll(1100);
        assertNotNull(f);
        assertEquals("event", f.reason);
        assertTrue(f.stable);
        assertEquals(100, f.quietMs);
        assertNull("a decision resets the burst", d.poll(1101));
        assertFalse(d.pending());
    }

    @Test
    public void eventsInsideTheQuietPeriodPostponeThePush() {
        d.onEvent(1000);
        d.onEvent(1080);
        assertNull(d.poll(1150));
        assertEquals(1180, d.deadline());
        ChangeDebouncer.Fire f = d.poll(1185);
        assertTrue(f.stable);
        assertEquals(105, f.quietMs);
    }

    @Test
    public void continuousEventsAreCappedAndReportedUnstable() {
        long t = 1000;
        ChangeDebouncer.Fire fire = null;
        for (; t < 3000 && fire == null; t += 50) {
            d.onEvent(t);
            fire = d.poll(t);
        }
        assertNotNull(fire);
        assertEquals("capped 500 ms after the burst began", 1550, t);
        assertFalse(fire.stable);
        assertEquals(0, fire.quietMs);
    }

    @Test
    public void capDeadlineWinsOverQuietDeadline() {
        d.onEvent(0);
        d.onEvent(450);
        assertEquals(500, d.deadline());
        ChangeDebouncer.Fire f = d.poll(500);
        assertFalse(f.stable);
        assertEquals(50, f.quietMs);
    }

    @Test
    public void timerFiresWithoutEventsAndRestartsAfterCaptures() {
        assertEquals(2000, d.deadline());
        assertNull(d.poll(1999));
        ChangeDebouncer.Fire f = d.poll(2000);
        assertEquals("timer", f.reason);
        assertTrue(f.stable);
        assertEquals(4000, d.deadline());
        d.captured(3500);
        assertEquals(5500, d.deadline());
        assertNull(d.poll(5000));
    }

    @Test
    public void timerCanBeDisabled() {
        ChangeDebouncer none = new ChangeDebouncer(100, 500, 0, 0);
        assertEquals(ChangeDebouncer.NEVER, none.deadline());
        assertNull(none.poll(1_000_000));
    }

    @Test(expected = IllegalArgumentException.class)
    public void capShorterThanQuietIsRefused() {
        new ChangeDebouncer(500, 100, 0, 0);
    }
}
