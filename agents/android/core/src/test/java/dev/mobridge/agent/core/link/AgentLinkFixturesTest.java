package dev.mobridge.agent.core.link;

import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;
import org.json.JSONException;
import org.json.JSONObject;
import org.junit.Assume;
import org.junit.Test;

/**
 * The golden agent-link fixtures (protocol/fixtures/agent-link), shared with the Python hub:
 * every file decodes strictly and re-encodes to the same JSON tree (so the Java encoder omits
 * exactly the defaults the hub's encoder omits).
 */
public class AgentLinkFixturesTest {
    static File fixtures(String direction) {
        String repo = System.getProperty("mobridge.repo", "../..");
        return new File(repo, "protocol/fixtures/agent-link/" + direction);
    }

    static File[] files(String direction) {
        File dir = fixtures(direction);
        Assume.assumeTrue("fixtures missing at " + dir, dir.isDirectory());
        File[] fs = dir.listFiles((d, n) -> n.endsWith(".json"));
        Arrays.sort(fs);
        assertTrue("no fixtures in " + dir, fs.length > 0);
        return fs;
    }

    static String read(File f) throws IOException {
        return new String(Files.readAllBytes(f.toPath()), StandardCharsets.UTF_8);
    }

    @Test
    public void hubToAgentFixturesRoundTrip() throws Exception {
        for (File f : files("hub-to-agent")) {
            String text = read(f);
            HubMessage m = decodeHub(f, text);
            String d = JsonTrees.diff(new JSONObject(text), new JSONObject(m.encode()), f.getName());
            assertNull(d, d);
        }
    }

    @Test
    public void agentToHubFixturesRoundTrip() throws Exception {
        for (File f : files("agent-to-hub")) {
            String text = read(f);
            AgentMessage m;
            try {
                m = AgentMessage.decode(text);
            } catch (BadMessageException e) {
                throw new AssertionError(f.getName() + ": " + e.getMessage(), e);
            }
            String d = JsonTrees.diff(new JSONObject(text), new JSONObject(m.encode()), f.getName());
            assertNull(d, d);
        }
    }

    @Test
    public void everyHubMessageTypeHasAFixture() throws Exception {
        java.util.Set<String> seen = new java.util.TreeSet<>();
        for (File f : files("hub-to-agent")) {
            seen.add(decodeHub(f, read(f)).type);
        }
        for (String t : new String[] {"hello", "capture", "node_action", "gesture", "global",
                "key", "text", "app", "screenshot", "clipboard", "ping", "options"}) {
            assertTrue("no fixture of type " + t + " in " + seen, seen.contains(t));
        }
    }

    private static HubMessage decodeHub(File f, String text) throws JSONException {
        try {
            return HubMessage.decode(text);
        } catch (BadMessageException e) {
            throw new AssertionError(f.getName() + ": " + e.getMessage(), e);
        }
    }
}
