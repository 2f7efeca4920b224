package dev.mobridge.agent.core.link;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.Arrays;
import org.json.JSONObject;
import org.junit.Test;

/** Decoding is as strict as the hub's msgspec types; encoding omits defaults like the hub. */
public class StrictDecodingTest {
    static void rejects(String json) {
        try {
            HubMessage.decode(json);
            fail("accepted: " + json);
        } catch (BadMessageException expected) {
            assertFalse(expected.getMessage().isEmpty());
        }
    }

    @Test
    public void rejectsWhatMsgspecRejects() {
        rejects("{\"type\":\"capture\",\"id\":1,\"extra\":true}");
        rejects("{\"type\":\"capture\",\"id\":\"1\"}");
        rejects("{\"type\":\"capture\",\"id\":1.5}");
        rejects("{\"type\":\"capture\",\"id\":-1}");
        rejects("{\"type\":\"capture\",\"id\":true}");
        rejects("{\"type\":\"capture\"}");
        rejects("{\"type\":\"teleport\",\"id\":1}");
        rejects("{\"id\":1}");
        rejects("[1,2]");
        rejects("{\"type\":\"capture\",\"id\":1} trailing");
        rejects("{not json");
        rejects("{\"type\":\"global\",\"id\":1,\"action\":\"back\"}");
        rejects("{\"type\":\"node_action\",\"id\":1,\"capture\":1,\"handle\":2,"
                + "\"action\":\"CLICK\",\"identity\":{\"colour\":\"red\"}}");
        rejects("{\"type\":\"node_action\",\"id\":1,\"capture\":1,\"handle\":2,"
                + "\"action\":\"CLICK\",\"identity\":{},\"allowGesture\":null}");
        rejects("{\"type\":\"gesture\",\"id\":1,\"kind\":\"tap\",\"points\":[]}");
        rejects("{\"type\":\"gesture\",\"id\":1,\"kind\":\"tap\",\"points\":[{\"x\":1}]}");
        rejects("{\"type\":\"gesture\",\"id\":1,\"kind\":\"tap\","
                + "\"points\":[{\"x\":1,\"y\":2}],\"durationMs\":-5}");
        StringBuilder many = new StringBuilder("{\"type\":\"gesture\",\"id\":1,\"kind\":\"swipe\","
                + "\"points\":[");
        for (int i = 0; i < 65; i++) {
            many.append(i == 0 ? "" : ",").append("{\"x\":1,\"y\":2}");
        }
        rejects(many.append("]}").toString());
    }

    @Test
    public void optionalNullFieldsAcceptNull() throws BadMessageException {
        HubMessage m = HubMessage.decode("{\"type\":\"app\",\"id\":3,\"action\":\"APP_OPEN\","
                + "\"appId\":\"a.b\",\"uri\":null}");
        assertNull(((HubMessage.App) m).uri);
        assertEquals("{\"type\":\"app\",\"id\":3,\"action\":\"APP_OPEN\",\"appId\":\"a.b\"}",
                m.encode());
    }

    @Test
    public void peekIdFindsTheIdOfABadCommand() {
        assertEquals(7, HubMessage.peekId("{\"type\":\"capture\",\"id\":7,\"x\":1}"));
        assertEquals(-1, HubMessage.peekId("{\"type\":\"capture\"}"));
        assertEquals(-1, HubMessage.peekId("garbage"));
    }

    @Test
    public void nodeActionDefaults() throws BadMessageException {
        HubMessage.NodeAction a = (HubMessage.NodeAction) HubMessage.decode(
                "{\"type\":\"node_action\",\"id\":1,\"capture\":4,\"handle\":2,"
                + "\"action\":\"CLICK\",\"identity\":{}}");
        assertTrue(a.allowAncestor);
        assertFalse(a.allowGesture);
        assertNull(a.text);
    }

    @Test
    public void rawNodeOmitsDefaultsAndNeverCarriesPasswordText() throws Exception {
        RawNode n = new RawNode();
        n.handle = 3;
        n.parent = 0;
        n.className = "android.widget.EditText";
        n.text = "hunter2";
        n.value = "hunter2";
        n.password = true;
        n.editable = true;
        JSONObject o = n.toJson();
        assertFalse(o.toString().contains("hunter2"));
        assertEquals(Arrays.asList("handle", "parent", "className", "editable", "password"),
                keys(o));
        RawNode plain = new RawNode();
        plain.handle = 1;
        plain.enabled = false;
        plain.visible = true;
        plain.hittable = Boolean.FALSE;
        assertEquals("{\"handle\":1,\"parent\":-1,\"enabled\":false,\"hittable\":false}",
                plain.toJson().toString());
    }

    @Test
    public void longTextsAreClippedWithoutSplittingSurrogates() throws Exception {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Texts.MAX_RAW_TEXT - 1; i++) {
            sb.append('a');
        }
        sb.append("\ud83d\ude00tail");
        String clipped = Texts.clip(sb.toString());
        assertEquals(Texts.MAX_RAW_TEXT - 1, clipped.length());
        RawNode n = new RawNode();
        n.text = sb.toString();
        RawNode back = RawNode.fromJson(new JSONObject(n.toJson().toString()), "n");
        assertEquals(clipped, back.text);
    }

    @Test
    public void replyAndStatusEncodeCompactly() {
        AgentMessage.Reply r = AgentMessage.Reply.failure(9, AgentMessage.Reply.SECURE, "no");
        assertEquals("{\"type\":\"reply\",\"id\":9,\"ok\":false,\"code\":\"SECURE\","
                + "\"message\":\"no\"}", r.encode());
        assertEquals("{\"type\":\"status\",\"state\":\"ready\"}",
                new AgentMessage.Status("ready", null).encode());
    }

    static java.util.List<String> keys(JSONObject o) {
        java.util.List<String> out = new java.util.ArrayList<>();
        java.util.Iterator<String> it = o.keys();
        while (it.hasNext()) {
            out.add(it.next());
        }
        return out;
    }
}
