import AgentCore
import Foundation
import XCTest

final class JsonTests: XCTestCase {
    func testParsesAndWritesCompactlyInInsertionOrder() throws {
        let v = try Json.parse(#" {"b": [1, -2.5, true, null, "x\"\\\n\u00e9\ud83d\ude00"], "a": {}} "#)
        XCTAssertEqual(v.encoded(), #"{"b":[1,-2.5,true,null,"x\"\\\né😀"],"a":{}}"#)
        XCTAssertEqual(try Json.parse(v.encoded()), v)
        XCTAssertEqual(Json.string("\u{1}\t").encoded(), #""\u0001\t""#)
    }

    func testRefusesWhatIsNotStrictJson() {
        let bad = ["", "{", "[1,]", "{\"a\":1,}", "{\"a\":1} x", "{\"a\":1,\"a\":2}", "'a'", "NaN", "01", "1.",
                   "\"\u{1}\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\x\"", "{a:1}", "tru", "1e999"]
        for text in bad { XCTAssertThrowsError(try Json.parse(text), text) }
    }

    func testNestingIsCapped() {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        XCTAssertThrowsError(try Json.parse(deep))
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        XCTAssertNoThrow(try Json.parse(ok))
        let hostile = String(repeating: "[", count: 100_000)
        XCTAssertThrowsError(try Json.parse(hostile))
    }

    func testIntegersAndDoublesStayApart() throws {
        XCTAssertEqual(try Json.parse("7"), .int(7))
        XCTAssertEqual(try Json.parse("7.0"), .double(7))
        XCTAssertEqual(try Json.parse("1e3"), .double(1000))
        XCTAssertEqual(try Json.parse("9223372036854775808"), .double(9_223_372_036_854_775_808))
    }
}

/// Every file of protocol/fixtures/agent-link decodes with this agent's strict decoder of its
/// direction and re-encodes to the same JSON; the decoded tag matches the file name.
final class AgentLinkFixturesTests: XCTestCase {
    private func fixtures(_ dir: String) throws -> [URL] {
        let url = Repo.file("protocol/fixtures/agent-link/\(dir)")
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertFalse(names.isEmpty, "no fixtures in \(url.path)")
        return names.map { url.appendingPathComponent($0) }
    }

    func testHubToAgentFixturesRoundTrip() throws {
        var seen = Set<String>()
        for url in try fixtures("hub-to-agent") {
            let text = try String(contentsOf: url, encoding: .utf8)
            let m = try HubMessage.decode(text)
            XCTAssertEqual(m.type, url.deletingPathExtension().lastPathComponent.components(separatedBy: "--")[0])
            XCTAssertEqual(try Json.parse(m.encode()), try Json.parse(text), url.lastPathComponent)
            seen.insert(m.type)
        }
        XCTAssertEqual(seen, ["hello", "capture", "node_action", "gesture", "global", "key", "text", "app",
                              "screenshot", "clipboard", "ping", "options", "apps", "terminate", "clear", "install",
                              "uninstall", "orientation", "alert", "permission", "location", "multi_touch",
                              "keyboard", "network"])
    }

    func testAgentToHubFixturesRoundTrip() throws {
        var seen = Set<String>()
        for url in try fixtures("agent-to-hub") {
            let text = try String(contentsOf: url, encoding: .utf8)
            let m = try AgentMessage.decode(text)
            XCTAssertEqual(try Json.parse(m.encode()), try Json.parse(text), url.lastPathComponent)
            let type: String
            switch m {
            case .hello: type = "hello"
            case .tree: type = "tree"
            case .treeDelta: type = "tree_delta"
            case .reply: type = "reply"
            case .status: type = "status"
            }
            XCTAssertEqual(type, url.deletingPathExtension().lastPathComponent.components(separatedBy: "--")[0])
            seen.insert(type)
        }
        XCTAssertEqual(seen, ["hello", "tree", "tree_delta", "reply", "status"])
    }

    /// The capture health fields are as bounded here as in the hub (bridge/wire/raw.py).
    func testCaptureHealthFieldsAreBoundedLikeTheHub() throws {
        func tree(_ extra: String) -> String {
            "{\"type\":\"tree\",\"reason\":\"event\",\"stable\":false,\"tree\":{\"capture\":1,\"platform\":\"IOS\",\"nodes\":[]\(extra)}}"
        }
        let ok = try AgentMessage.decode(tree(",\"truncated\":\"depth\",\"warnings\":[\"a\",\"b\"]"))
        guard case .tree(_, _, let t, _) = ok else { return XCTFail("a tree") }
        XCTAssertEqual(t.truncated, "depth")
        XCTAssertEqual(t.warnings, ["a", "b"])
        let nine = (0..<9).map { "\"w\($0)\"" }.joined(separator: ",")
        XCTAssertThrowsError(try AgentMessage.decode(tree(",\"warnings\":[\(nine)]")))
        let long = String(repeating: "x", count: 301)
        XCTAssertThrowsError(try AgentMessage.decode(tree(",\"truncated\":\"\(long)\"")))
        XCTAssertThrowsError(try AgentMessage.decode(tree(",\"warnings\":[\"\(long)\"]")))
    }
}

/// The Swift agent's tree deltas are the hub's: between the golden trees, `RawTreeDelta`
/// writes exactly the golden `tree_delta` fixtures (the canonical form of the hub's reference
/// implementation); the same tree again is an empty delta; repeated handles or a tree mostly
/// changed give none (the whole tree goes).
final class RawTreeDeltaTests: XCTestCase {
    private func message(_ name: String) throws -> AgentMessage {
        let url = Repo.file("protocol/fixtures/agent-link/agent-to-hub/\(name)")
        return try AgentMessage.decode(try String(contentsOf: url, encoding: .utf8))
    }

    private func tree(_ name: String) throws -> RawTree {
        guard case .tree(_, _, let t, _) = try message(name) else { throw JsonError("\(name): not a tree") }
        return t
    }

    private func assertGolden(_ after: String, _ deltaName: String) throws {
        guard case .treeDelta(let want) = try message(deltaName) else { return XCTFail("\(deltaName): not a delta") }
        let got = RawTreeDelta.between(try tree("tree.json"), try tree(after), reason: want.reason,
                                       stable: want.stable, quietMs: want.quietMs)
        XCTAssertEqual(got?.toJson(), want.toJson(), deltaName)
    }

    func testAChangedCheckboxAndLabelGiveTheGoldenDelta() throws {
        try assertGolden("tree--checked.json", "tree_delta.json")
    }

    func testARemovedLogoAndAnInsertedErrorGiveTheGoldenReshapeDelta() throws {
        try assertGolden("tree--error.json", "tree_delta--reshape.json")
    }

    func testTheSameTreeAgainIsAnEmptyDeltaAndRepeatedHandlesGoWhole() throws {
        let a = try tree("tree.json")
        var b = a
        b.capture += 1
        let d = try XCTUnwrap(RawTreeDelta.between(a, b, reason: "event", stable: true))
        XCTAssertTrue(d.remove.isEmpty && d.upsert.isEmpty && d.order.isEmpty)
        XCTAssertNil(d.meta)
        XCTAssertEqual(d.base, a.capture)
        var twice = a
        twice.nodes[2].handle = twice.nodes[1].handle
        XCTAssertNil(RawTreeDelta.between(a, twice, reason: "event", stable: true))
        var renamed = a
        for i in renamed.nodes.indices { renamed.nodes[i].text = "changed \(i)" }
        XCTAssertNil(RawTreeDelta.between(a, renamed, reason: "event", stable: true))
    }
}

final class StrictDecodingTests: XCTestCase {
    private func refused(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try HubMessage.decode(text), text, file: file, line: line)
    }

    func testUnknownFieldsTypesAndValuesAreRefused() {
        refused(#"{"type":"capture","id":1,"extra":true}"#)
        refused(#"{"type":"teleport","id":1}"#)
        refused(#"{"type":"capture","id":-1}"#)
        refused(#"{"type":"capture","id":"1"}"#)
        refused(#"{"type":"capture","id":1.5}"#)
        refused(#"{"type":"capture"}"#)
        refused(#"{"type":"global","id":1,"action":"JUMP"}"#)
        refused(#"{"type":"node_action","id":1,"capture":1,"handle":2,"action":"CLICK","identity":{"colour":"red"}}"#)
        refused(#"{"type":"node_action","id":1,"capture":1,"handle":2,"action":"CLICK","identity":{},"allowGesture":1}"#)
        refused(#"{"type":"gesture","id":1,"kind":"tap","points":[]}"#)
        refused(#"{"type":"gesture","id":1,"kind":"tap","points":[{"x":1}]}"#)
        let many = (0..<65).map { _ in #"{"x":1,"y":2}"# }.joined(separator: ",")
        refused(#"{"type":"gesture","id":1,"kind":"swipe","points":[\#(many)]}"#)
        refused(#"[1]"#)
        refused(#"{"type":"orientation","id":1,"orientation":"sideways"}"#)
        refused(#"{"type":"terminate","id":1}"#)
        refused(#"{"type":"clear","id":1}"#)
        refused(#"{"type":"alert","id":1,"action":"shout"}"#)
        refused(#"{"type":"location","id":1,"latitude":200,"longitude":0}"#)
        refused(#"{"type":"location","id":1,"latitude":1}"#)
        refused(#"{"type":"multi_touch","id":1,"kind":"pinch","center":{"x":1,"y":2},"scale":0}"#)
        refused(#"{"type":"permission","id":1,"action":"grant","appId":"a.b"}"#)
        refused(#"{"type":"install","id":1,"path":"/data/local/tmp/x.apk","sha256":"ABC"}"#)
        refused(#"{"type":"apps","id":1,"all":true}"#)
        XCTAssertThrowsError(try AgentMessage.decode(#"{"type":"reply","id":1,"ok":true,"apps":[{"name":"x"}]}"#))
    }

    func testPeekIdReadsAnIdFromABadCommand() {
        XCTAssertEqual(HubMessage.peekId(#"{"type":"teleport","id":42}"#), 42)
        XCTAssertNil(HubMessage.peekId(#"{"type":"teleport","id":-4}"#))
        XCTAssertNil(HubMessage.peekId("not json"))
    }

    func testRawTreeLimitsAreEnforcedOnDecodeAndEncode() throws {
        let long = String(repeating: "é", count: RawLimits.maxRawText + 1)
        var node = RawNode(handle: 1, parent: -1)
        node.label = long
        var tree = RawTree(capture: 1, platform: .ios)
        tree.nodes = [node]
        guard case .object(let t) = tree.toJson(), case .array(let ns)? = t["nodes"], case .object(let n) = ns[0],
              case .string(let label)? = n["label"] else { return XCTFail("shape") }
        XCTAssertEqual(label.unicodeScalars.count, RawLimits.maxRawText)
        let reply = #"{"type":"reply","id":1,"ok":true,"tree":{"capture":1,"platform":"IOS","nodes":[{"handle":1,"parent":-1,"label":"\#(long)"}]}}"#
        XCTAssertThrowsError(try AgentMessage.decode(reply))
    }

    func testPasswordValuesAreNeverEncoded() {
        var n = RawNode(handle: 1, parent: -1)
        n.password = true
        n.value = "hunter2"
        n.text = "hunter2"
        XCTAssertFalse(n.toJson().encoded().contains("hunter2"))
    }
}
