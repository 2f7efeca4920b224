package dev.mobridge.agent.host;

import dev.mobridge.agent.core.AgentConfig;
import dev.mobridge.agent.core.AgentLog;
import dev.mobridge.agent.core.AgentServer;
import dev.mobridge.agent.core.Clock;
import dev.mobridge.agent.core.Transport;
import dev.mobridge.agent.core.capture.LayoutMode;
import dev.mobridge.agent.core.ws.TokenCheck;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * Host mode: the agent core with the scripted {@link FakeUiBackend}, serving the agent link on
 * 127.0.0.1 only. Usage: {@code HostMain --port P --token T [--scene NAME] [--layout
 * full|compressed] [--sdk N] [--hidden-api-blocked] [--service-info-refused]} (token also from
 * MOBRIDGE_AGENT_TOKEN; scenes: {@link FakeScenes#NAMES}, default login; --sdk is the API level
 * the fake reports to the core, default 34; --hidden-api-blocked blocks hidden API calls, which
 * the agent no longer makes; --service-info-refused makes the pre-34 cache clear,
 * setServiceInfo, fail). Prints exactly one line {@code READY ws://127.0.0.1:P} on stdout once
 * it accepts connections (P is the real port when 0 was asked for).
 */
public final class HostMain {
    private HostMain() {}

    public static void main(String[] args) throws IOException {
        int port = -1;
        String token = System.getenv("MOBRIDGE_AGENT_TOKEN");
        String scene = "login";
        LayoutMode layout = LayoutMode.FULL;
        int sdk = 34;
        boolean blocked = false;
        boolean refused = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("--port") && i + 1 < args.length) {
                port = parsePort(args[++i]);
            } else if (a.equals("--token") && i + 1 < args.length) {
                token = args[++i];
            } else if (a.equals("--scene") && i + 1 < args.length) {
                scene = args[++i];
                if (!FakeScenes.NAMES.contains(scene)) {
                    usage("unknown scene " + scene + "; scenes: " + FakeScenes.NAMES);
                }
            } else if (a.equals("--layout") && i + 1 < args.length) {
                try {
                    layout = LayoutMode.parse(args[++i]);
                } catch (IllegalArgumentException e) {
                    usage(e.getMessage());
                }
            } else if (a.equals("--sdk") && i + 1 < args.length) {
                String level = args[++i];
                if (!level.matches("[1-9][0-9]?")) {
                    usage("--sdk is an API level (1..99), not " + level);
                }
                sdk = Integer.parseInt(level);
            } else if (a.equals("--hidden-api-blocked")) {
                blocked = true;
            } else if (a.equals("--service-info-refused")) {
                refused = true;
            } else {
                usage("unknown argument " + a);
            }
        }
        if (port < 0) {
            usage("--port is required");
        }
        if (token == null || token.isEmpty()) {
            usage("--token (or MOBRIDGE_AGENT_TOKEN) is required");
        }
        ServerSocket listener = new ServerSocket();
        listener.setReuseAddress(true);
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        AgentConfig config = new AgentConfig();
        config.agentName = "mobridge-android-agent-host";
        FakeUiBackend backend = new FakeUiBackend();
        backend.setScene(scene);
        backend.setLayout(layout);
        backend.setSdkInt(sdk);
        backend.setHiddenApiBlocked(blocked);
        backend.setServiceInfoRefused(refused);
        AgentServer server = new AgentServer(backend, new TokenCheck(token), config,
                Clock.SYSTEM, AgentLog.STDERR);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.stop("host agent shutting down");
            try {
                listener.close();
            } catch (IOException ignored) {
                // Exiting anyway.
            }
        }));
        System.out.println("READY ws://127.0.0.1:" + listener.getLocalPort());
        System.out.flush();
        serve(listener, server);
    }

    /** Accepts until the listener closes, one thread per connection. */
    public static void serve(ServerSocket listener, AgentServer server) {
        while (!listener.isClosed()) {
            Socket s;
            try {
                s = listener.accept();
            } catch (IOException e) {
                return;
            }
            Thread t = new Thread(() -> server.serve(new SocketTransport(s)), "mobridge-conn");
            t.setDaemon(true);
            t.start();
        }
    }

    private static int parsePort(String s) {
        try {
            int p = Integer.parseInt(s);
            if (p >= 0 && p <= 65535) {
                return p;
            }
        } catch (NumberFormatException ignored) {
            // Reported below.
        }
        usage("bad port " + s);
        return -1;
    }

    private static void usage(String why) {
        System.err.println("run-android-agent-host: " + why);
        System.err.println("usage: run-android-agent-host --port P --token T [--scene NAME]"
                + " [--layout full|compressed] [--sdk N] [--hidden-api-blocked]"
                + " [--service-info-refused]");
        System.exit(2);
    }

    /** A TCP socket as a {@link Transport}. */
    public static final class SocketTransport implements Transport {
        private final Socket socket;

        public SocketTransport(Socket socket) {
            this.socket = socket;
            try {
                socket.setTcpNoDelay(true);
            } catch (IOException ignored) {
                // Latency only.
            }
        }

        @Override
        public InputStream input() throws IOException {
            return socket.getInputStream();
        }

        @Override
        public OutputStream output() throws IOException {
            return socket.getOutputStream();
        }

        @Override
        public void setReadTimeout(int millis) throws IOException {
            socket.setSoTimeout(millis);
        }

        @Override
        public void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // Already closed.
            }
        }
    }
}
