package dev.mobridge.agent.core.capture;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import dev.mobridge.agent.core.link.RawNode;
import dev.mobridge.agent.core.link.RawTree;
import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

/** The walk: depth and node limits while walking, prefetch flags passed down, handles kept. */
public class TreeWalkerTest {
    static final class N {
        final String key;
        final List<N> kids = new ArrayList<>();
        String text;

        N(String key) {
            this.key = key;
        }

        N add(N c) {
            kids.add(c);
            return this;
        }
    }

    final List<Integer> prefetchSeen = new ArrayList<>();
    int childCalls;

    final TreeWalker.Source<N> source = new TreeWalker.Source<N>() {
        public int childCount(N n) {
            return n.kids.size();
        }

        public N child(N n, int index, int prefetch) {
            childCalls++;
            prefetchSeen.add(prefetch);
            return n.kids.get(index);
        }

        public RawNode read(N n) {
            RawNode r = new RawNode();
            r.text = n.text;
            return r;
        }

        public Object key(N n) {
            return n.key;
        }
    };

    static N chain(int levels) {
        N root = new N("root");
        N cur = root;
        for (int i = 1; i <= levels; i++) {
            N c = new N("level" + i);
            cur.add(c);
            cur = c;
        }
        N leaf = new N("leaf");
        leaf.text = "Deep leaf";
        cur.add(leaf);
        return root;
    }

    static RawTree capture(TreeWalker<N> w, int id, N root, int prefetch) {
        RawTree t = new RawTree();
        t.capture = id;
        TreeWalker<N>.Walk walk = w.begin(t, prefetch);
        walk.window(root, 1);
        return walk.finish();
    }

    @Test
    public void aTreeDeeperThanTheLimitIsCutWhileWalkingAndSaysSo() {
        TreeWalker<N> w = new TreeWalker<>(source);
        RawTree t = capture(w, 1, chain(300), 0);
        assertEquals(TreeWalker.MAX_DEPTH + 1, t.nodes.size());
        assertNotNull(t.truncated);
        assertTrue(t.truncated, t.truncated.contains("depth limit 256"));
        // Nothing below the limit was even fetched.
        assertEquals(TreeWalker.MAX_DEPTH, childCalls);
        for (RawNode n : t.nodes) {
            assertNotEquals("Deep leaf", n.text);
        }
    }

    @Test
    public void aTreeWithinTheLimitIsWholeAndNotTruncated() {
        TreeWalker<N> w = new TreeWalker<>(source);
        RawTree t = capture(w, 1, chain(100), 0);
        assertEquals(102, t.nodes.size());
        assertNull(t.truncated);
        assertEquals("Deep leaf", t.nodes.get(101).text);
        assertEquals(100, t.nodes.get(101).parent);
    }

    @Test
    public void theNodeLimitStopsTheWalk() {
        N root = new N("r");
        for (int i = 0; i < 50; i++) {
            root.add(new N("c" + i));
        }
        TreeWalker<N> w = new TreeWalker<>(source, 10, 20);
        RawTree t = capture(w, 1, root, 0);
        assertEquals(20, t.nodes.size());
        assertTrue(t.truncated, t.truncated.contains("node limit 20"));
    }

    @Test
    public void thePrefetchStrategyReachesEveryChildFetch() {
        TreeWalker<N> w = new TreeWalker<>(source);
        int strategy = Prefetch.strategyFor(33);
        capture(w, 1, chain(5), strategy);
        assertEquals(6, prefetchSeen.size());
        for (int p : prefetchSeen) {
            assertEquals(strategy, p);
        }
    }

    @Test
    public void prefetchingIsAskedForFromApi33Only() {
        assertEquals(0, Prefetch.strategyFor(26));
        assertEquals(0, Prefetch.strategyFor(32));
        int s = Prefetch.strategyFor(33);
        assertTrue((s & Prefetch.FLAG_PREFETCH_DESCENDANTS_DEPTH_FIRST) != 0);
        assertTrue((s & Prefetch.FLAG_PREFETCH_UNINTERRUPTIBLE) != 0);
        assertEquals(s, Prefetch.strategyFor(35));
    }

    @Test
    public void handlesSurviveCapturesAndOldCapturesAreDropped() {
        TreeWalker<N> w = new TreeWalker<>(source);
        N root = new N("r").add(new N("a")).add(new N("b"));
        RawTree one = capture(w, 1, root, 0);
        RawTree two = capture(w, 2, root, 0);
        for (int i = 0; i < 3; i++) {
            assertEquals(one.nodes.get(i).handle, two.nodes.get(i).handle);
        }
        assertSame(root.kids.get(0), w.node(2, two.nodes.get(1).handle));
        for (int c = 3; c <= 6; c++) {
            capture(w, c, root, 0);
        }
        assertTrue(!w.holds(1) && !w.holds(2) && w.holds(3) && w.holds(6));
        w.reset();
        assertEquals(1, capture(w, 1, root, 0).nodes.get(0).handle);
    }

    @Test
    public void aKeySeenTwiceInOneWalkGetsAFreshHandle() {
        TreeWalker<N> w = new TreeWalker<>(source);
        N shared = new N("same");
        N root = new N("r").add(shared).add(shared);
        RawTree t = capture(w, 1, root, 0);
        assertNotEquals(t.nodes.get(1).handle, t.nodes.get(2).handle);
    }
}
