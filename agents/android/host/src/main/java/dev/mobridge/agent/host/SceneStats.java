package dev.mobridge.agent.host;

import dev.mobridge.agent.core.capture.LayoutMode;
import dev.mobridge.agent.core.link.RawTree;

/**
 * Prints, per scene, the node counts of the full and the compressed layout and the node fetches
 * ("binder calls" of the fake's model) of one capture without (API 32) and with (API 33)
 * prefetching. Usage: {@code java ... SceneStats [SCENE...]} (default: every scene). A
 * measurement aid for docs/android.md, not a test.
 */
public final class SceneStats {
    private SceneStats() {}

    public static void main(String[] args) {
        String[] scenes = args.length > 0 ? args : FakeScenes.NAMES.toArray(new String[0]);
        System.out.println("scene\tfull_nodes\tcompressed_nodes\tfetches_api32\tfetches_api33"
                + "\ttruncated");
        for (String scene : scenes) {
            FakeUiBackend b = new FakeUiBackend(System::currentTimeMillis, false);
            b.setScene(scene);
            b.setSdkInt(32);
            int before = b.childFetches();
            RawTree full = b.capture(1);
            int plain = b.childFetches() - before;
            b.setSdkInt(33);
            before = b.childFetches();
            b.capture(2);
            int prefetched = b.childFetches() - before;
            b.setLayout(LayoutMode.COMPRESSED);
            RawTree compressed = b.capture(3);
            System.out.println(scene + "\t" + full.nodes.size() + "\t" + compressed.nodes.size()
                    + "\t" + plain + "\t" + prefetched + "\t" + (full.truncated != null));
        }
    }
}
