package dev.mobridge.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import org.junit.Test;

/** What the agent reads from the package manager and what it lets into a shell command. */
public class PackageListsTest {
    @Test
    public void parsesPackageLinesAndDropsAnythingElse() {
        String out = "package:com.example.shop\r\npackage:com.android.settings\n"
                + "package:bad name\npackage:com.example.shop\nWARNING: linker\n";
        assertEquals(Arrays.asList("com.example.shop", "com.android.settings"),
                PackageLists.parse(out));
    }

    @Test
    public void onlyPackageNamesAndStagedPathsReachTheShell() {
        assertTrue(PackageLists.packageName("com.example.shop"));
        assertFalse(PackageLists.packageName("com.example.shop;reboot"));
        assertFalse(PackageLists.packageName("shop"));
        assertFalse(PackageLists.packageName("com.example.shop --user 0"));
        assertTrue(PackageLists.stagedPath("/data/local/tmp/mobridge-1a2b.apk"));
        assertFalse(PackageLists.stagedPath("/data/local/tmp/../data/x.apk"));
        assertFalse(PackageLists.stagedPath("/sdcard/x.apk"));
        assertFalse(PackageLists.stagedPath("/data/local/tmp/a b.apk"));
        assertEquals("Failure [DELETE_FAILED_INTERNAL_ERROR]",
                PackageLists.first("Failure [DELETE_FAILED_INTERNAL_ERROR]\nmore\n"));
    }
}
