package dev.mobridge.agent.core;

import dev.mobridge.agent.core.link.AgentMessage;
import dev.mobridge.agent.core.link.AgentMessage.Reply;
import dev.mobridge.agent.core.link.AlertInfo;
import dev.mobridge.agent.core.link.BadMessageException;
import dev.mobridge.agent.core.link.GlobalAction;
import dev.mobridge.agent.core.link.HubMessage;
import dev.mobridge.agent.core.link.Platform;
import dev.mobridge.agent.core.link.RawNode;
import dev.mobridge.agent.core.link.RawTree;
import dev.mobridge.agent.core.link.RawTreeDelta;
import dev.mobridge.agent.core.ws.CloseCode;
import dev.mobridge.agent.core.ws.WsConnection;
import dev.mobridge.agent.core.ws.WsHandshake;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * One hub connection: handshake, hello exchange, the initial tree, then commands in and
 * debounced pushes, status changes and keepalive pings out.
 *
 * <p>Invariants: every command gets exactly one reply with its id (a malformed command whose id
 * can be read gets BAD_COMMAND; one without a readable id closes the link with 1008); trees are
 * numbered 1, 2, 3... in the order they are sent on this connection; the same state is never
 * pushed twice in a row (a capture equal to the last tree sent is dropped); while the watchdog
 * reports degraded, no tree is pushed and captures are refused, so the hub never receives a
 * stale tree. Tree deltas: when the backend keeps handles per element (it announces {@code
 * tree_delta}) and the hub asked for them ({@code options}), a capture goes as its delta from
 * the last tree sent on this link (a push or a capture reply: {@link RawTreeDelta}), or whole
 * when that is as good; trees and replies are sent from the UI thread in order, so a delta is
 * always based on the tree the hub last received.
 */
final class AgentSession implements UiEventListener {
    /** The capability of a backend that keeps node handles across captures. */
    static final String TREE_DELTA = "tree_delta";

    private final AgentServer server;
    private final Transport transport;
    private final AgentConfig config;
    private final UiBackend backend;
    private final Watchdog watchdog = new Watchdog();
    private final Object pushLock = new Object();
    private ChangeDebouncer debouncer;
    private WsConnection conn;
    private ScheduledExecutorService timers;
    private Thread pusher;
    private volatile boolean running;
    private Future<String> probe;
    private long probeStarted;
    /** The watchdog's allowance while the current command runs ({@link WorkBudget}). */
    private volatile long busyBudgetMs;
    private volatile boolean treeDeltas;
    // Touched only on the UI thread:
    private int nextCapture = 1;
    private String lastFingerprint;
    private RawTree lastSent;

    AgentSession(AgentServer server, Transport transport) {
        this.server = server;
        this.transport = transport;
        this.config = server.config;
        this.backend = server.backend;
    }

    void run() throws IOException {
        InputStream in = new BufferedInputStream(transport.input());
        OutputStream out = new BufferedOutputStream(transport.output());
        transport.setReadTimeout(config.handshakeTimeoutMs);
        WsHandshake.Result hs = WsHandshake.perform(in, out, server.tokens);
        if (!hs.ok()) {
            server.log.info("handshake refused: " + hs.status + " " + hs.reason);
            return;
        }
        conn = new WsConnection(in, out, config.maxMessageBytes);
        if (!server.activate(this)) {
            conn.close(CloseCode.GOING_AWAY, "agent stopping");
            return;
        }
        running = true;
        transport.setReadTimeout(config.helloTimeoutMs);
        if (!exchangeHello()) {
            return;
        }
        transport.setReadTimeout(config.idleTimeoutMs);
        startBackground();
        server.log.info("hub connected");
        while (running) {
            String text;
            try {
                text = conn.readMessage();
            } catch (SocketTimeoutException e) {
                conn.close(CloseCode.GOING_AWAY, "no traffic for " + config.idleTimeoutMs + " ms");
                break;
            }
            if (text == null) {
                break;
            }
            handle(text);
        }
        server.log.info("hub link closed: " + conn.closeCode());
    }

    private boolean exchangeHello() throws IOException {
        String text;
        try {
            text = conn.readMessage();
        } catch (SocketTimeoutException e) {
            conn.close(CloseCode.POLICY_VIOLATION, "no hello");
            return false;
        }
        if (text == null) {
            return false;
        }
        HubMessage first;
        try {
            first = HubMessage.decode(text);
        } catch (BadMessageException e) {
            conn.close(CloseCode.POLICY_VIOLATION, "bad hello: " + e.getMessage());
            return false;
        }
        if (!(first instanceof HubMessage.Hello)) {
            conn.close(CloseCode.POLICY_VIOLATION, "hello must come first");
            return false;
        }
        HubMessage.Hello hello = (HubMessage.Hello) first;
        if (hello.protocol != AgentMessage.PROTOCOL) {
            conn.close(CloseCode.POLICY_VIOLATION,
                    "protocol mismatch: agent speaks " + AgentMessage.PROTOCOL);
            return false;
        }
        if (hello.token != null && !server.tokens.matches(hello.token)) {
            conn.close(CloseCode.POLICY_VIOLATION, "wrong token in hello");
            return false;
        }
        long now = server.clock.nowMillis();
        debouncer = new ChangeDebouncer(config.quietMs, config.capMs, config.timerMs, now);
        Future<?> initial = submit(() -> {
            backend.reset();
            backend.setEventListener(this);
            send(new AgentMessage.Hello(AgentMessage.PROTOCOL, Platform.ANDROID,
                    config.agentName, config.agentVersion, backend.deviceInfo(),
                    backend.capabilities()));
            String problem = backend.health();
            if (problem != null) {
                watchdog.observe(problem);
                send(new AgentMessage.Status(Watchdog.DEGRADED, problem));
                return;
            }
            push(new ChangeDebouncer.Fire("initial", true, 0), "initial");
        });
        if (initial == null) {
            return false;
        }
        try {
            // Nothing (not even a pong-like ping reply) may overtake the agent's hello.
            initial.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException e) {
            server.log.warn("hello or initial capture failed", e.getCause());
        }
        return running;
    }

    private void startBackground() {
        timers = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "mobridge-timers");
            t.setDaemon(true);
            return t;
        });
        timers.scheduleWithFixedDelay(this::watchdogTick, config.watchdogIntervalMs,
                config.watchdogIntervalMs, TimeUnit.MILLISECONDS);
        timers.scheduleWithFixedDelay(this::keepalive, config.keepaliveMs, config.keepaliveMs,
                TimeUnit.MILLISECONDS);
        pusher = new Thread(this::pushLoop, "mobridge-pusher");
        pusher.setDaemon(true);
        pusher.start();
    }

    private void handle(String text) {
        HubMessage msg;
        try {
            msg = HubMessage.decode(text);
        } catch (BadMessageException e) {
            long id = HubMessage.peekId(text);
            if (id < 0) {
                conn.close(CloseCode.POLICY_VIOLATION, "malformed message without an id");
                running = false;
            } else {
                send(Reply.failure(id, Reply.BAD_COMMAND, e.getMessage()));
            }
            return;
        }
        if (msg instanceof HubMessage.Hello) {
            conn.close(CloseCode.POLICY_VIOLATION, "hello sent twice");
            running = false;
            return;
        }
        HubMessage.Command cmd = (HubMessage.Command) msg;
        if (cmd instanceof HubMessage.Ping) {
            send(new Reply(cmd.id, true));
            return;
        }
        if (cmd instanceof HubMessage.Options) {
            boolean wanted = ((HubMessage.Options) cmd).treeDelta;
            treeDeltas = wanted && backend.capabilities().contains(TREE_DELTA);
            send(new Reply(cmd.id, true));
            return;
        }
        if (submit(() -> {
            busyBudgetMs = WorkBudget.ms(cmd, config.probeTimeoutMs);
            try {
                send(dispatch(cmd));
            } finally {
                busyBudgetMs = 0;
            }
        }) == null) {
            send(Reply.failure(cmd.id, Reply.FAILED, "agent stopping"));
        }
    }

    /** Runs one command against the backend (UI thread) and builds its reply. */
    Reply dispatch(HubMessage.Command cmd) {
        if (watchdog.degraded()) {
            return Reply.failure(cmd.id, Reply.FAILED, "agent degraded: " + watchdog.reason());
        }
        try {
            if (cmd instanceof HubMessage.Capture) {
                RawTree tree = backend.capture(nextCapture);
                nextCapture++;
                lastFingerprint = fingerprint(tree);
                lastSent = tree;
                synchronized (pushLock) {
                    debouncer.captured(server.clock.nowMillis());
                }
                Reply r = new Reply(cmd.id, true);
                r.tree = tree;
                return r;
            }
            Outcome o;
            if (cmd instanceof HubMessage.NodeAction) {
                o = backend.nodeAction((HubMessage.NodeAction) cmd);
            } else if (cmd instanceof HubMessage.Gesture) {
                HubMessage.Gesture g = (HubMessage.Gesture) cmd;
                String problem = gestureProblem(g);
                o = problem == null ? backend.gesture(g)
                        : Outcome.fail(Reply.BAD_COMMAND, problem);
            } else if (cmd instanceof HubMessage.Global) {
                o = backend.globalAction(((HubMessage.Global) cmd).action);
            } else if (cmd instanceof HubMessage.Key) {
                o = backend.key(((HubMessage.Key) cmd).key);
            } else if (cmd instanceof HubMessage.Text) {
                o = backend.typeText(((HubMessage.Text) cmd).text);
            } else if (cmd instanceof HubMessage.App) {
                o = backend.app((HubMessage.App) cmd);
            } else if (cmd instanceof HubMessage.Screenshot) {
                o = backend.screenshot();
            } else if (cmd instanceof HubMessage.Clipboard) {
                o = backend.clipboard(((HubMessage.Clipboard) cmd).set);
            } else if (cmd instanceof HubMessage.Apps) {
                o = backend.apps();
            } else if (cmd instanceof HubMessage.Terminate) {
                o = backend.terminate(((HubMessage.Terminate) cmd).appId);
            } else if (cmd instanceof HubMessage.Clear) {
                o = backend.clear(((HubMessage.Clear) cmd).appId);
            } else if (cmd instanceof HubMessage.Install) {
                HubMessage.Install in = (HubMessage.Install) cmd;
                o = backend.install(in.path, in.sha256);
            } else if (cmd instanceof HubMessage.Uninstall) {
                o = backend.uninstall(((HubMessage.Uninstall) cmd).appId);
            } else if (cmd instanceof HubMessage.Orientation) {
                o = backend.orientation(((HubMessage.Orientation) cmd).orientation);
            } else if (cmd instanceof HubMessage.Alert) {
                o = alert((HubMessage.Alert) cmd);
            } else if (cmd instanceof HubMessage.Keyboard) {
                o = KeyboardHide.hide(backend, () -> backend.capture(nextCapture++));
            } else if (cmd instanceof HubMessage.MultiTouch) {
                HubMessage.MultiTouch t = (HubMessage.MultiTouch) cmd;
                // Clamped to the screen (issue 34: a pinch near an edge left it).
                int[] size = backend.screenSize();
                o = backend.multiTouch(t.kind.equals("pinch")
                        ? DeviceCommands.pinch(t.center[0], t.center[1], t.span, t.scale, size[0],
                                size[1])
                        : DeviceCommands.twoFingerTap(t.center[0], t.center[1], t.span, size[0],
                                size[1]),
                        t.kind.equals("pinch") ? Math.max(t.durationMs, 200) : 60);
            } else if (cmd instanceof HubMessage.Permission) {
                HubMessage.Permission p = (HubMessage.Permission) cmd;
                int sdk = backend.sdkInt();
                String android = DeviceCommands.androidPermission(p.permission, sdk);
                if (android == null) {
                    o = Outcome.fail(Reply.BAD_COMMAND, "unknown permission '" + p.permission + "'");
                } else if (DeviceCommands.NOT_A_RUNTIME_PERMISSION.equals(android)) {
                    o = Outcome.unsupported("'" + p.permission + "' is no runtime permission before"
                            + " Android 13 (API " + sdk + "): the app may notify without it");
                } else {
                    o = backend.permission(p.appId, android,
                            DeviceCommands.permission(p.action, p.appId, p.permission, sdk));
                }
            } else if (cmd instanceof HubMessage.Location) {
                HubMessage.Location l = (HubMessage.Location) cmd;
                o = backend.location(l.latitude, l.longitude);
            } else {
                o = Outcome.unsupported("command " + cmd.type + " is not supported");
            }
            return o.toReply(cmd.id);
        } catch (Exception e) {
            server.log.warn("command " + cmd.type + " failed", e);
            return Reply.failure(cmd.id, Reply.FAILED, describe(e));
        }
    }

    /** The alerts on screen, or the top one answered by a tap on the chosen button. */
    private Outcome alert(HubMessage.Alert cmd) throws Exception {
        List<Alerts.Found> found = Alerts.find(backend.capture(nextCapture++));
        if (cmd.action.equals("list")) {
            List<AlertInfo> infos = new ArrayList<>();
            for (Alerts.Found f : found) {
                infos.add(f.info);
            }
            return Outcome.alerts(infos.subList(0, Math.min(infos.size(), Reply.MAX_ALERTS)));
        }
        if (found.isEmpty()) {
            return Outcome.notFound("no alert is on screen");
        }
        StringBuilder why = new StringBuilder();
        RawNode button = Alerts.choose(found.get(0), cmd.action, cmd.button, why);
        if (button == null) {
            return Outcome.notFound(why.toString());
        }
        int[] b = button.bounds;
        List<int[]> at = new ArrayList<>();
        at.add(new int[] {(b[0] + b[2]) / 2, (b[1] + b[3]) / 2});
        return backend.gesture(new HubMessage.Gesture(cmd.id, "tap", at, 0));
    }

    /** Why the gesture's points do not fit its kind, or null. */
    static String gestureProblem(HubMessage.Gesture g) {
        if (g.kind.equals("swipe")) {
            return g.points.size() >= 2 ? null : "swipe needs at least two points";
        }
        return g.points.size() == 1 ? null : g.kind + " takes exactly one point";
    }

    @Override
    public void onUiEvent() {
        synchronized (pushLock) {
            if (debouncer != null) {
                debouncer.onEvent(server.clock.nowMillis());
                pushLock.notifyAll();
            }
        }
    }

    private void pushLoop() {
        try {
            while (running) {
                ChangeDebouncer.Fire fire;
                synchronized (pushLock) {
                    long now = server.clock.nowMillis();
                    fire = debouncer.poll(now);
                    if (fire == null) {
                        long deadline = debouncer.deadline();
                        long wait = deadline == ChangeDebouncer.NEVER ? 0 : deadline - now;
                        if (deadline == ChangeDebouncer.NEVER) {
                            pushLock.wait();
                        } else if (wait > 0) {
                            pushLock.wait(wait);
                        }
                        continue;
                    }
                }
                ChangeDebouncer.Fire f = fire;
                Future<?> done = submit(() -> push(f, f.reason));
                if (done == null) {
                    return;
                }
                done.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            server.log.warn("push failed", e.getCause());
        }
    }

    /** Captures and sends a tree unless degraded or unchanged (UI thread). */
    private void push(ChangeDebouncer.Fire fire, String reason) {
        if (watchdog.degraded() || !running) {
            return;
        }
        RawTree tree;
        try {
            tree = backend.capture(nextCapture);
        } catch (Exception e) {
            server.log.warn("capture for a push failed", e);
            return;
        }
        String fp = fingerprint(tree);
        if (fp.equals(lastFingerprint)) {
            return;
        }
        nextCapture++;
        lastFingerprint = fp;
        int quiet = (int) Math.min(Integer.MAX_VALUE, Math.max(0, fire.quietMs));
        AgentMessage message = null;
        if (treeDeltas && lastSent != null) {
            message = RawTreeDelta.between(lastSent, tree, reason, fire.stable, quiet);
        }
        send(message != null ? message : new AgentMessage.Tree(reason, fire.stable, tree, quiet));
        lastSent = tree;
    }

    /** The tree's content without its capture number. */
    private static String fingerprint(RawTree tree) {
        int n = tree.capture;
        tree.capture = 0;
        String s = tree.toJson().toString();
        tree.capture = n;
        return s;
    }

    private void watchdogTick() {
        String transition = null;
        long now = server.clock.nowMillis();
        if (probe != null) {
            if (probe.isDone()) {
                String result;
                try {
                    result = probe.get();
                } catch (ExecutionException e) {
                    result = "health probe failed: " + describe(e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                probe = null;
                transition = watchdog.observe(result);
            } else if (now - probeStarted > Math.max(config.probeTimeoutMs, busyBudgetMs)) {
                transition = watchdog.observe(
                        "UI backend unresponsive for " + (now - probeStarted) + " ms");
            }
        } else {
            try {
                probe = server.uiThread.submit(backend::health);
                probeStarted = now;
            } catch (RejectedExecutionException e) {
                return;
            }
        }
        if (transition == null) {
            return;
        }
        if (transition.equals(Watchdog.DEGRADED)) {
            server.log.info("degraded: " + watchdog.reason());
            send(new AgentMessage.Status(Watchdog.DEGRADED, watchdog.reason()));
        } else {
            server.log.info("ready again");
            send(new AgentMessage.Status(Watchdog.READY, null));
            submit(() -> {
                lastFingerprint = null;
                long quiet;
                synchronized (pushLock) {
                    quiet = debouncer.quietFor(server.clock.nowMillis());
                }
                push(new ChangeDebouncer.Fire("event", true, quiet), "event");
            });
        }
    }

    private void keepalive() {
        try {
            conn.sendPing(new byte[0]);
        } catch (IOException e) {
            closeTransport();
        }
    }

    private Future<?> submit(Runnable r) {
        try {
            return server.uiThread.submit(r);
        } catch (RejectedExecutionException e) {
            return null;
        }
    }

    private void send(AgentMessage m) {
        try {
            conn.sendText(m.encode());
        } catch (IOException e) {
            if (running) {
                server.log.info("send failed; closing the link");
            }
            running = false;
            closeTransport();
        }
    }

    /**
     * A newer hub connection took over. The close frame goes first: once {@code running} is
     * false the session's own thread may end and close the link itself (1000), and the hub
     * must be told it was superseded (1001), not that the link simply ended.
     */
    void supersede() {
        if (conn != null) {
            conn.close(CloseCode.GOING_AWAY, "superseded by a newer hub connection");
        }
        running = false;
        closeTransport();
    }

    /** The agent is shutting down: say so, then close. */
    void stop(String reason) {
        if (conn != null && conn.isOpen()) {
            send(new AgentMessage.Status("stopping", reason));
            conn.close(CloseCode.GOING_AWAY, "agent stopping");
        }
        running = false;
        closeTransport();
    }

    void shutdown() {
        running = false;
        if (timers != null) {
            timers.shutdownNow();
        }
        if (pusher != null) {
            pusher.interrupt();
        }
        if (server.isCurrent(this)) {
            backend.setEventListener(null);
        }
        if (conn != null && conn.isOpen()) {
            conn.close(CloseCode.NORMAL, "");
        }
        closeTransport();
    }

    private void closeTransport() {
        transport.close();
    }

    static String describe(Throwable e) {
        String m = e.getMessage();
        String s = e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
        return s.length() > 300 ? s.substring(0, 300) : s;
    }
}
