package dev.mobridge.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class WatchdogTest {
    @Test
    public void reportsOnlyTransitions() {
        Watchdog w = new Watchdog();
        assertNull(w.observe(null));
        assertEquals(Watchdog.DEGRADED, w.observe("UiAutomation not connected"));
        assertTrue(w.degraded());
        assertEquals("UiAutomation not connected", w.reason());
        assertNull("still degraded: no second status", w.observe("still gone"));
        assertEquals("still gone", w.reason());
        assertEquals(Watchdog.READY, w.observe(null));
        assertFalse(w.degraded());
        assertNull(w.reason());
        assertNull(w.observe(null));
    }
}
