package dev.mobridge.agent.core;

import dev.mobridge.agent.core.link.AgentMessage.DeviceInfo;
import dev.mobridge.agent.core.link.GlobalAction;
import dev.mobridge.agent.core.link.HubMessage;
import dev.mobridge.agent.core.link.RawTree;
import java.util.List;

/**
 * Everything the agent needs from a UI: capture, actions, app control, screenshot, clipboard,
 * change events, and (optional, announced as capabilities) the app list, app lifecycle and the
 * orientation. Implementations: the UiAutomation backend on a device and the scripted
 * fake in host mode.
 *
 * <p>Contract: the core calls every method except {@link #setEventListener} from one thread at a
 * time; handles in a capture stay valid for node actions until {@link #reset} or until the
 * backend drops that capture (it keeps at least the newest {@link #RETAINED_CAPTURES});
 * password values never appear in a capture; expected failures are returned as
 * {@link Outcome}s, and any exception thrown is reported to the hub as FAILED.
 */
public interface UiBackend {
    int RETAINED_CAPTURES = 4;

    DeviceInfo deviceInfo();

    /** Capability names announced in hello (e.g. tree, node_action, screenshot). */
    List<String> capabilities();

    /** Installs (or, with null, removes) the listener for UI change events. */
    void setEventListener(UiEventListener listener);

    /** Forgets every capture and its handles (a new hub connection starts numbering at 1). */
    void reset();

    /** A full capture numbered {@code captureId}; handles refer to this capture. */
    RawTree capture(int captureId) throws Exception;

    Outcome nodeAction(HubMessage.NodeAction command) throws Exception;

    Outcome gesture(HubMessage.Gesture command) throws Exception;

    Outcome globalAction(GlobalAction action) throws Exception;

    Outcome key(String keyName) throws Exception;

    Outcome typeText(String text) throws Exception;

    Outcome app(HubMessage.App command) throws Exception;

    /** A PNG (base64) of the screen, or SECURE when a window forbids capture. */
    Outcome screenshot() throws Exception;

    /** Reads the clipboard ({@code set} null) or sets it. */
    Outcome clipboard(String set) throws Exception;

    /** Null while healthy, else why the UI source cannot be trusted (watchdog probe). */
    String health();

    /** The installed apps ({@link Outcome#apps}); a backend that cannot list them says so. */
    default Outcome apps() throws Exception {
        return Outcome.unsupported("this device cannot list its apps");
    }

    /** Stops the app's process. */
    default Outcome terminate(String appId) throws Exception {
        return Outcome.unsupported("this device cannot stop apps");
    }

    /** Clears the app's stored data (and stops it). */
    default Outcome clear(String appId) throws Exception {
        return Outcome.unsupported("this device cannot clear an app's data");
    }

    /** The device's API level (0: unknown, treated as the newest). */
    default int sdkInt() {
        return 0;
    }

    /** The screen's size in pixels {width, height} ({0, 0}: unknown, nothing clamped). */
    default int[] screenSize() throws Exception {
        return new int[] {0, 0};
    }

    /**
     * Whether the keyboard shows per the input method manager ({@code mInputShown}); null when
     * the backend cannot tell ({@link KeyboardHide} then reads a capture).
     */
    default Boolean inputShown() throws Exception {
        return null;
    }

    /** Runs the {@code pm} commands of a permission change ({@link DeviceCommands}). */
    default Outcome permission(String appId, String androidPermission, List<String> commands)
            throws Exception {
        return Outcome.unsupported("this device cannot change an app's permissions");
    }

    /** Simulates the location at (latitude, longitude); nulls: stop simulating it. */
    default Outcome location(Double latitude, Double longitude) throws Exception {
        return Outcome.unsupported("this device cannot simulate its location");
    }

    /** Several fingers at once, each along its path, over {@code durationMs}. */
    default Outcome multiTouch(List<List<int[]>> fingers, int durationMs) throws Exception {
        return Outcome.unsupported("this device cannot inject several fingers at once");
    }

    /** Installs the package staged at {@code path} ({@link Outcome#installed} names it). */
    default Outcome install(String path, String sha256) throws Exception {
        return Outcome.unsupported("this device cannot install apps");
    }

    default Outcome uninstall(String appId) throws Exception {
        return Outcome.unsupported("this device cannot uninstall apps");
    }

    /** Turns the screen: "portrait" or "landscape". */
    default Outcome orientation(String orientation) throws Exception {
        return Outcome.unsupported("this device cannot turn its screen");
    }
}
