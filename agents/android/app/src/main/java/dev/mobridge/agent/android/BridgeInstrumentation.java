package dev.mobridge.agent.android;

import android.accessibilityservice.AccessibilityServiceInfo;
import android.app.Instrumentation;
import android.app.UiAutomation;
import android.net.LocalServerSocket;
import android.net.LocalSocket;
import android.os.Bundle;
import dev.mobridge.agent.core.AgentConfig;
import dev.mobridge.agent.core.AgentServer;
import dev.mobridge.agent.core.Clock;
import dev.mobridge.agent.core.capture.LayoutMode;
import dev.mobridge.agent.core.link.AgentMessage;
import dev.mobridge.agent.core.ws.TokenCheck;
import java.io.IOException;

/**
 * Entry point: {@code am instrument -w -r -e token T -e socket NAME [-e device SERIAL]
 * [-e layout full|compressed] dev.mobridge.agent.android/.BridgeInstrumentation}.
 *
 * <p>Obtains UiAutomation once, on the instrumentation thread (never the main thread), with
 * FLAG_DONT_SUPPRESS_ACCESSIBILITY_SERVICES so TalkBack and other services keep running; asks
 * for interactive windows, view ids and (layout {@code full}, the default; {@link LayoutMode})
 * views not important for accessibility; then serves the agent link on the
 * abstract unix socket NAME (no TCP port: only processes that know NAME and T get in). Reports
 * readiness as one instrumentation status ({@code mobridge.state=ready}, result code 1) so the
 * hub does not poll, and never finishes while serving; a fatal error is reported with
 * {@code mobridge.state=failed} (code -1) and finishes the instrumentation.
 */
public final class BridgeInstrumentation extends Instrumentation {
    public static final int STATUS_READY = 1;
    public static final int STATUS_FAILED = -1;

    private String token;
    private String socketName;
    private String deviceId;
    private String layout;

    @Override
    public void onCreate(Bundle arguments) {
        super.onCreate(arguments);
        if (arguments != null) {
            token = arguments.getString("token");
            socketName = arguments.getString("socket");
            deviceId = arguments.getString("device");
            layout = arguments.getString("layout");
        }
        start();
    }

    @Override
    public void onStart() {
        super.onStart();
        if (token == null || token.isEmpty() || socketName == null || socketName.isEmpty()) {
            fail("missing -e token T and -e socket NAME");
            return;
        }
        LayoutMode mode;
        try {
            mode = LayoutMode.parse(layout);
        } catch (IllegalArgumentException e) {
            fail(e.getMessage());
            return;
        }
        UiAutomation automation;
        try {
            automation = getUiAutomation(UiAutomation.FLAG_DONT_SUPPRESS_ACCESSIBILITY_SERVICES);
            AccessibilityServiceInfo info = automation.getServiceInfo();
            info.flags |= AccessibilityServiceInfo.FLAG_RETRIEVE_INTERACTIVE_WINDOWS
                    | AccessibilityServiceInfo.FLAG_REPORT_VIEW_IDS;
            if (mode.includeNotImportantViews()) {
                info.flags |= AccessibilityServiceInfo.FLAG_INCLUDE_NOT_IMPORTANT_VIEWS;
            } else {
                info.flags &= ~AccessibilityServiceInfo.FLAG_INCLUDE_NOT_IMPORTANT_VIEWS;
            }
            automation.setServiceInfo(info);
        } catch (RuntimeException e) {
            fail("UiAutomation unavailable: " + e.getClass().getSimpleName() + ": "
                    + e.getMessage());
            return;
        }
        AgentConfig config = new AgentConfig();
        AgentServer server = new AgentServer(
                new UiAutomationBackend(this, automation, deviceId), new TokenCheck(token),
                config, Clock.SYSTEM, new LogcatLog());
        LocalServerSocket listener;
        try {
            listener = new LocalServerSocket(socketName);
        } catch (IOException e) {
            fail("cannot listen on @" + socketName + ": " + e.getMessage());
            return;
        }
        Bundle ready = new Bundle();
        ready.putString("mobridge.state", "ready");
        ready.putString("mobridge.socket", socketName);
        ready.putString("mobridge.protocol", String.valueOf(AgentMessage.PROTOCOL));
        ready.putString("mobridge.version", config.agentVersion);
        sendStatus(STATUS_READY, ready);
        while (true) {
            LocalSocket socket;
            try {
                socket = listener.accept();
            } catch (IOException e) {
                server.stop("listener failed");
                fail("accept on @" + socketName + " failed: " + e.getMessage());
                return;
            }
            Thread t = new Thread(() -> server.serve(new LocalSocketTransport(socket)),
                    "mobridge-conn");
            t.setDaemon(true);
            t.start();
        }
    }

    private void fail(String why) {
        new LogcatLog().warn(why, null);
        Bundle failed = new Bundle();
        failed.putString("mobridge.state", "failed");
        failed.putString("mobridge.error", why);
        sendStatus(STATUS_FAILED, failed);
        finish(STATUS_FAILED, failed);
    }
}
