package dev.mobridge.agent.core.link;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.File;
import org.json.JSONObject;
import org.junit.Test;

/**
 * The Java agent's tree deltas are the hub's: between the golden trees of
 * protocol/fixtures/agent-link/agent-to-hub, {@link RawTreeDelta#between} writes exactly the
 * golden {@code tree_delta} fixtures (the canonical form the hub's reference implementation
 * writes); identical trees give an empty delta; repeated handles or a tree mostly changed give
 * none (the whole tree goes).
 */
public class RawTreeDeltaTest {
    static RawTree tree(String name) throws Exception {
        File f = new File(AgentLinkFixturesTest.fixtures("agent-to-hub"), name);
        AgentMessage m = AgentMessage.decode(AgentLinkFixturesTest.read(f));
        return ((AgentMessage.Tree) m).tree;
    }

    static void assertFixture(String base, String after, String deltaName) throws Exception {
        File f = new File(AgentLinkFixturesTest.fixtures("agent-to-hub"), deltaName);
        JSONObject want = new JSONObject(AgentLinkFixturesTest.read(f));
        AgentMessage.TreeDelta got = RawTreeDelta.between(tree(base), tree(after),
                want.getString("reason"), want.getBoolean("stable"), want.optInt("quietMs", 0));
        assertNotNull(got);
        String d = JsonTrees.diff(want, got.toJson(), deltaName);
        assertNull(d, d);
    }

    @Test
    public void aChangedCheckboxAndLabelGiveTheGoldenDelta() throws Exception {
        assertFixture("tree.json", "tree--checked.json", "tree_delta.json");
    }

    @Test
    public void aRemovedLogoAndAnInsertedErrorGiveTheGoldenReshapeDelta() throws Exception {
        assertFixture("tree.json", "tree--error.json", "tree_delta--reshape.json");
    }

    @Test
    public void goldenDeltasDecodeAndEncodeAsTheyAre() throws Exception {
        for (String name : new String[] {"tree_delta.json", "tree_delta--reshape.json"}) {
            File f = new File(AgentLinkFixturesTest.fixtures("agent-to-hub"), name);
            String text = AgentLinkFixturesTest.read(f);
            AgentMessage m = AgentMessage.decode(text);
            assertTrue(m instanceof AgentMessage.TreeDelta);
            String d = JsonTrees.diff(new JSONObject(text), m.toJson(), name);
            assertNull(d, d);
        }
    }

    @Test
    public void theSameTreeAgainIsAnEmptyDelta() throws Exception {
        RawTree a = tree("tree.json");
        RawTree b = tree("tree.json");
        b.capture = a.capture + 1;
        AgentMessage.TreeDelta d = RawTreeDelta.between(a, b, "event", true, 0);
        assertNotNull(d);
        assertTrue(d.remove.isEmpty() && d.upsert.isEmpty() && d.order.isEmpty());
        assertNull(d.meta);
        assertEquals(a.capture, d.base);
        assertEquals(b.capture, d.capture);
    }

    @Test
    public void repeatedHandlesOrAMostlyNewTreeGoWhole() throws Exception {
        RawTree a = tree("tree.json");
        RawTree twice = tree("tree.json");
        twice.nodes.get(2).handle = twice.nodes.get(1).handle;
        assertNull(RawTreeDelta.between(a, twice, "event", true, 0));
        RawTree renamed = tree("tree.json");
        for (RawNode n : renamed.nodes) {
            n.text = "changed " + n.handle;
        }
        assertNull(RawTreeDelta.between(a, renamed, "event", true, 0));
    }
}
