package dev.mobridge.agent.core.capture;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import dev.mobridge.agent.core.WorkBudget;
import dev.mobridge.agent.core.link.ActionVerb;
import dev.mobridge.agent.core.link.HubMessage;
import dev.mobridge.agent.core.link.NodeIdentity;
import dev.mobridge.agent.core.link.RawWindow;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.Test;

/** The secure-window cache, the cache clear's warning, the layout option, the work budget. */
public class CaptureDecisionsTest {
    static final String SECURE_DUMP = "  Window #1 Window{a1 u0 com.bank/.Pin}:\n"
            + "    mAttrs={(0,0)(fillxfill) fl=LAYOUT_IN_SCREEN SECURE}\n";

    static RawWindow window(int id, String title) {
        RawWindow w = new RawWindow();
        w.id = id;
        w.title = title;
        w.bounds = new int[] {0, 0, 1080, 2400};
        return w;
    }

    @Test
    public void theSecureCheckDumpsOncePerWindowSignature() throws Exception {
        SecureCheck check = new SecureCheck();
        int[] dumps = {0};
        SecureCheck.Dump dump = () -> {
            dumps[0]++;
            return SECURE_DUMP;
        };
        String login = SecureCheck.signature(Arrays.asList(window(1, "Login")));
        assertEquals(Arrays.asList("com.bank/.Pin"), check.secureWindows(login, 0, dump));
        assertEquals(1, check.secureWindows(login, 100, dump).size());
        assertEquals(1, check.secureWindows(login, 4000, dump).size());
        assertEquals("the same windows: one dumpsys", 1, dumps[0]);
        assertTrue(check.knownSecure(login));
        List<RawWindow> two = new ArrayList<>(Arrays.asList(window(1, "Login"), window(2, "IME")));
        String withIme = SecureCheck.signature(two);
        check.secureWindows(withIme, 4100, dump);
        assertEquals("another window appeared: dump again", 2, dumps[0]);
        assertFalse(check.knownSecure(login));
        check.secureWindows(withIme, 4100 + SecureCheck.MAX_AGE_MS, dump);
        assertEquals("an old answer is read again", 3, dumps[0]);
        assertEquals(3, check.dumps());
    }

    @Test
    public void moving_orRetitlingAWindowChangesTheSignature() {
        RawWindow a = window(1, "Login");
        RawWindow b = window(1, "Home");
        RawWindow c = window(1, "Login");
        c.bounds = new int[] {0, 0, 2400, 1080};
        String sa = SecureCheck.signature(Arrays.asList(a));
        assertFalse(sa.equals(SecureCheck.signature(Arrays.asList(b))));
        assertFalse(sa.equals(SecureCheck.signature(Arrays.asList(c))));
    }

    static final class Platform implements CacheClear.Platform {
        boolean publicOk = true;
        Exception reflective;
        boolean reflectiveOk = true;
        int publicCalls;
        int reflectiveCalls;

        public boolean clearPublic() {
            publicCalls++;
            return publicOk;
        }

        public boolean resetServiceInfo() throws Exception {
            reflectiveCalls++;
            if (reflective != null) {
                throw reflective;
            }
            return reflectiveOk;
        }
    }

    @Test
    public void aRefusedCacheClearIsReportedNotSwallowed() {
        Platform p = new Platform();
        assertNull(CacheClear.clear(30, p));
        assertEquals("before API 34: setServiceInfo, once", 1, p.reflectiveCalls);
        p.reflective = new IllegalStateException("not connected");
        String w = CacheClear.clear(30, p);
        assertTrue(w, w.contains("setServiceInfo"));
        assertTrue(w, w.contains("IllegalStateException"));
        assertTrue(w, w.contains("API 30"));
        p.reflective = new java.lang.reflect.InvocationTargetException(
                new SecurityException("denied"));
        assertTrue(CacheClear.clear(28, p).contains("SecurityException"));
        p.reflective = null;
        p.reflectiveOk = false;
        assertTrue(CacheClear.clear(26, p).contains("no effect"));
        assertEquals(0, p.publicCalls);
    }

    @Test
    public void fromApi34ThePublicClearIsUsed() {
        Platform p = new Platform();
        p.reflective = new NoSuchMethodException("never called");
        assertNull(CacheClear.clear(34, p));
        assertEquals(1, p.publicCalls);
        assertEquals(0, p.reflectiveCalls);
        p.publicOk = false;
        assertTrue(CacheClear.clear(35, p).contains("returned false"));
    }

    @Test
    public void theLayoutOptionDefaultsToFullAndRefusesOtherNames() {
        assertEquals(LayoutMode.FULL, LayoutMode.parse(null));
        assertEquals(LayoutMode.FULL, LayoutMode.parse(""));
        assertEquals(LayoutMode.FULL, LayoutMode.parse("full"));
        assertEquals(LayoutMode.COMPRESSED, LayoutMode.parse("compressed"));
        assertTrue(LayoutMode.FULL.includeNotImportantViews());
        assertFalse(LayoutMode.COMPRESSED.includeNotImportantViews());
        try {
            LayoutMode.parse("Compressed");
            throw new AssertionError("accepted a wrong name");
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage().contains("full or compressed"));
        }
    }

    @Test
    public void theWatchdogBudgetGrowsWithTheTextToType() {
        char[] chars = new char[2000];
        Arrays.fill(chars, 'a');
        String text = new String(chars);
        assertEquals(5000, WorkBudget.ms(new HubMessage.Ping(1), 5000));
        assertEquals(5000 + 2000 * WorkBudget.PER_CHAR_MS,
                WorkBudget.ms(new HubMessage.Text(2, text), 5000));
        HubMessage.NodeAction set = new HubMessage.NodeAction(3, 1, 1, ActionVerb.SET_TEXT,
                new NodeIdentity(null, null, null, null));
        set.text = text;
        assertEquals(5000 + 2000 * WorkBudget.PER_CHAR_MS, WorkBudget.ms(set, 5000));
        char[] huge = new char[100_000];
        assertEquals(WorkBudget.MAX_MS, WorkBudget.ms(new HubMessage.Text(4, new String(huge)),
                5000));
    }
}
