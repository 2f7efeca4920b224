package dev.mobridge.agent.host;

import dev.mobridge.agent.core.Outcome;
import dev.mobridge.agent.core.link.InstalledApp;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The host fake's package manager: the demo app, a launcher and settings as installed, plus
 * packages installed from host files. A host-mode package is JSON {@code {"appId", "name"}} of
 * at most 4 KiB (the simulated device's format); system apps cannot be removed or replaced.
 */
final class FakePackages {
    static final int MAX_PACKAGE = 4096;
    static final int MAX_USER_APPS = 64;
    private final Map<String, InstalledApp> apps = new LinkedHashMap<>();

    FakePackages() {
        add(new InstalledApp(FakeUiBackend.PKG, "Mobridge Demo", false));
        add(new InstalledApp(FakeUiBackend.LAUNCHER_PKG, "Launcher", true));
        add(new InstalledApp("com.android.settings", "Settings", true));
    }

    private void add(InstalledApp app) {
        apps.put(app.appId, app);
    }

    boolean has(String appId) {
        return apps.containsKey(appId);
    }

    List<InstalledApp> list() {
        return new ArrayList<>(apps.values());
    }

    Outcome install(String path, String sha256) throws IOException {
        Path file = Paths.get(path);
        if (!Files.isRegularFile(file)) {
            return Outcome.failed("no package at " + path);
        }
        byte[] data;
        try (InputStream in = Files.newInputStream(file)) {
            data = in.readNBytes(MAX_PACKAGE + 1);
        }
        if (sha256 != null && !sha256.equals(hex(data))) {
            return Outcome.failed("the package does not have the sha256 the hub sent");
        }
        InstalledApp app = parse(data);
        if (app == null) {
            return Outcome.failed("not a host-mode package: expected JSON {\"appId\", \"name\"} of"
                    + " at most " + MAX_PACKAGE + " bytes");
        }
        InstalledApp known = apps.get(app.appId);
        if (known != null && known.system) {
            return Outcome.failed(app.appId + " is a system app; it cannot be replaced");
        }
        if (known == null && apps.size() >= MAX_USER_APPS + 3) {
            return Outcome.failed("the fake device is full");
        }
        add(app);
        return Outcome.installed(app.appId);
    }

    Outcome uninstall(String appId) {
        InstalledApp known = apps.get(appId);
        if (known == null) {
            return Outcome.notFound("app " + appId + " is not installed");
        }
        if (known.system) {
            return Outcome.failed(appId + " is a system app; it cannot be removed");
        }
        apps.remove(appId);
        return Outcome.ok();
    }

    static InstalledApp parse(byte[] data) {
        if (data.length > MAX_PACKAGE) {
            return null;
        }
        try {
            JSONObject doc = new JSONObject(new String(data, StandardCharsets.UTF_8));
            for (String key : doc.keySet()) {
                if (!key.equals("appId") && !key.equals("name")) {
                    return null;
                }
            }
            Object id = doc.opt("appId");
            Object name = doc.opt("name");
            if (!(id instanceof String) || (name != null && !(name instanceof String))) {
                return null;
            }
            String appId = (String) id;
            if (!appId.matches("[A-Za-z][A-Za-z0-9_-]*(\\.[A-Za-z0-9_-]+)+")
                    || appId.length() > 255) {
                return null;
            }
            return new InstalledApp(appId, (String) name, false);
        } catch (JSONException e) {
            return null;
        }
    }

    private static String hex(byte[] data) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(data);
            StringBuilder s = new StringBuilder();
            for (byte b : d) {
                s.append(String.format("%02x", b & 0xff));
            }
            return s.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
