import AgentCore
import XCTest

final class WsHandshakeTests: XCTestCase {
    static let key = "dGhlIHNhbXBsZSBub25jZQ=="

    static func good() -> [String] {
        ["Host: 127.0.0.1:9000", "Upgrade: websocket", "Connection: keep-alive, Upgrade", "Sec-WebSocket-Key: \(key)",
         "Sec-WebSocket-Version: 13", "Authorization: Bearer s3cret-token"]
    }

    static func without(_ prefix: String, _ extra: String...) -> [String] {
        good().filter { !$0.hasPrefix(prefix) } + extra
    }

    private func run(_ headers: [String], requestLine: String = "GET /agent HTTP/1.1")
        throws -> (WsHandshake.Outcome, String, Int)
    {
        let head = ([requestLine] + headers).joined(separator: "\r\n") + "\r\n\r\n"
        let stream = MemoryStream(Array(head.utf8) + [0x81, 0x00])
        let reader = BufferedReader(stream)
        let outcome = try WsHandshake.perform(reader, tokens: try TokenCheck("s3cret-token"))
        return (outcome, stream.outputText, stream.remaining + reader.buffered)
    }

    func testValidUpgradeGets101WithAcceptAndLeavesTheFrameBytesUnread() throws {
        let (o, response, left) = try run(Self.good())
        XCTAssertTrue(o.ok)
        XCTAssertEqual(o.path, "/agent")
        XCTAssertTrue(response.hasPrefix("HTTP/1.1 101 Switching Protocols\r\n"))
        XCTAssertTrue(response.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))
        XCTAssertFalse(response.contains("Extensions"))
        XCTAssertEqual(left, 2)
    }

    func testHeaderNamesAndBearerSchemeAreCaseInsensitive() throws {
        XCTAssertEqual(try run(Self.without("Authorization", "AUTHORIZATION: bearer s3cret-token")).0.status, 101)
    }

    func testWrongOrMissingTokenIs401BeforeAnyUpgradeCheck() throws {
        let wrong = try run(Self.without("Authorization", "Authorization: Bearer nope") .filter { !$0.hasPrefix("Upgrade") })
        XCTAssertEqual(wrong.0.status, 401)
        XCTAssertTrue(wrong.1.contains("WWW-Authenticate: Bearer"))
        XCTAssertEqual(try run(Self.without("Authorization")).0.status, 401)
        XCTAssertEqual(try run(Self.without("Authorization", "Authorization: Basic czNjcmV0")).0.status, 401)
    }

    func testMissingUpgradePartsAre400() throws {
        for prefix in ["Host", "Upgrade", "Connection", "Sec-WebSocket-Key"] {
            XCTAssertEqual(try run(Self.without(prefix)).0.status, 400, prefix)
        }
        let v12 = try run(Self.without("Sec-WebSocket-Version", "Sec-WebSocket-Version: 12"))
        XCTAssertEqual(v12.0.status, 400)
        XCTAssertTrue(v12.1.contains("Sec-WebSocket-Version: 13"))
        XCTAssertEqual(try run(Self.without("Sec-WebSocket-Key", "Sec-WebSocket-Key: c2hvcnQ=")).0.status, 400)
    }

    func testBadRequestLineAndMalformedHeadersAre400() throws {
        XCTAssertEqual(try run(Self.good(), requestLine: "POST /agent HTTP/1.1").0.status, 400)
        XCTAssertEqual(try run(Self.good(), requestLine: "GET /agent HTTP/1.0").0.status, 400)
        XCTAssertEqual(try run(Self.good() + ["no colon here"]).0.status, 400)
    }

    func testOversizedOrTruncatedHeadIs400() throws {
        let big = try run(Self.good() + ["X-Pad: " + String(repeating: "a", count: 9000)])
        XCTAssertEqual(big.0.status, 400)
        let stream = MemoryStream(Array("GET / HTTP/1.1\r\nHost: x\r\n".utf8))
        let o = try WsHandshake.perform(BufferedReader(stream), tokens: try TokenCheck("t"))
        XCTAssertEqual(o.status, 400)
    }
}

final class WsFrameCodecTests: XCTestCase {
    private func roundTrip(_ n: Int) throws {
        let payload = (0..<n).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let reader = BufferedReader(MemoryStream(clientFrame(.binary, payload), chunk: 1000))
        let f = try XCTUnwrap(try WsFrameCodec.read(reader, requireMask: true, maxPayload: 1 << 20))
        XCTAssertEqual(f.payload, payload, "length \(n)")
        XCTAssertTrue(f.masked && f.fin)
    }

    func testLengthEncodingsRoundTrip() throws {
        for n in [0, 1, 125, 126, 127, 65535, 65536, 70000] { try roundTrip(n) }
    }

    func testServerFramesUseTheShortestLengthAndNoMask() {
        XCTAssertEqual(WsFrameCodec.encode(fin: true, opcode: .text, payload: Array("Hi".utf8)), [0x81, 0x02, 0x48, 0x69])
        XCTAssertEqual(Array(WsFrameCodec.encode(fin: true, opcode: .binary, payload: [UInt8](repeating: 0, count: 126)).prefix(4)),
                       [0x82, 126, 0, 126])
        XCTAssertEqual(Array(WsFrameCodec.encode(fin: true, opcode: .binary, payload: [UInt8](repeating: 0, count: 65536)).prefix(10)),
                       [0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0])
    }

    func testRfc6455MaskedHelloExample() throws {
        let bytes: [UInt8] = [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
        let f = try XCTUnwrap(try WsFrameCodec.read(BufferedReader(MemoryStream(bytes)), requireMask: true, maxPayload: 100))
        XCTAssertEqual(String(decoding: f.payload, as: UTF8.self), "Hello")
    }

    private func protocolError(_ bytes: [UInt8], max: Int = 1 << 20) -> Int? {
        do {
            _ = try WsFrameCodec.read(BufferedReader(MemoryStream(bytes)), requireMask: true, maxPayload: max)
            return nil
        } catch let e as WsProtocolError {
            return e.closeCode
        } catch {
            return -1
        }
    }

    func testViolationsAreProtocolErrors() {
        XCTAssertEqual(protocolError([0xC1, 0x80, 0, 0, 0, 0]), 1002, "reserved bit")
        XCTAssertEqual(protocolError([0x83, 0x80, 0, 0, 0, 0]), 1002, "unknown opcode")
        XCTAssertEqual(protocolError([0x81, 0x00]), 1002, "client frame without a mask")
        XCTAssertEqual(protocolError([0x09, 0x80, 0, 0, 0, 0]), 1002, "fragmented ping")
        XCTAssertEqual(protocolError(clientFrame(.ping, [UInt8](repeating: 1, count: 126))), 1002, "long ping")
        XCTAssertEqual(protocolError([0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0]), 1002, "64-bit top bit")
        XCTAssertEqual(protocolError(clientFrame(.binary, [UInt8](repeating: 1, count: 300)), max: 200), 1009, "too big")
    }

    func testHugeDeclaredLengthIsRefusedBeforeReadingThePayload() {
        // 2^40 bytes declared, nothing follows: refused from the header alone.
        XCTAssertEqual(protocolError([0x82, 0xFF, 0, 0, 1, 0, 0, 0, 0, 0, 1, 2, 3, 4]), 1009)
    }

    func testEndOfStreamInsideAFrameThrowsAndBeforeOneIsNil() throws {
        XCTAssertNil(try WsFrameCodec.read(BufferedReader(MemoryStream([])), requireMask: true, maxPayload: 10))
        XCTAssertThrowsError(try WsFrameCodec.read(BufferedReader(MemoryStream([0x81, 0x85, 1])), requireMask: true, maxPayload: 10))
    }
}

final class WsConnectionTests: XCTestCase {
    private func connection(_ input: [UInt8], max: Int = 1 << 20) -> (WsConnection, MemoryStream) {
        let s = MemoryStream(input)
        return (WsConnection(reader: BufferedReader(s), maxMessage: max), s)
    }

    func testFragmentsAreReassembledAndPingsAnsweredBetweenThem() throws {
        let input = clientFrame(.text, Array("Hel".utf8), fin: false) + clientFrame(.ping, [9, 8])
            + clientFrame(.continuation, Array("lo €".utf8))
        let (c, s) = connection(input)
        XCTAssertEqual(try c.readMessage(), "Hello €")
        let frames = try serverFrames(s.output)
        XCTAssertEqual(frames.map(\.opcode), [.pong])
        XCTAssertEqual(frames[0].payload, [9, 8])
    }

    func testCloseIsEchoedOnceWithTheSameCode() throws {
        let (c, s) = connection(clientFrame(.close, [0x03, 0xE8]))
        XCTAssertNil(try c.readMessage())
        XCTAssertEqual(c.closeCode, 1000)
        c.close(code: 1001, reason: "again")
        let frames = try serverFrames(s.output)
        XCTAssertEqual(frames.count, 1)
        XCTAssertEqual(closeCode(frames[0]), 1000)
        XCTAssertThrowsError(try c.sendText("late"))
    }

    func testInvalidUtf8Closes1007() throws {
        let (c, s) = connection(clientFrame(.text, [0xC3, 0x28]))
        XCTAssertNil(try c.readMessage())
        XCTAssertEqual(closeCode(try serverFrames(s.output)[0]), 1007)
    }

    func testOversizedMessageAcrossFragmentsCloses1009() throws {
        let input = clientFrame(.text, [UInt8](repeating: 0x61, count: 60), fin: false)
            + clientFrame(.continuation, [UInt8](repeating: 0x61, count: 60))
        let (c, s) = connection(input, max: 100)
        XCTAssertNil(try c.readMessage())
        XCTAssertEqual(closeCode(try serverFrames(s.output)[0]), 1009)
    }

    func testContinuationWithoutStartAndNestedMessagesClose1002() throws {
        let (c1, s1) = connection(clientFrame(.continuation, [1]))
        XCTAssertNil(try c1.readMessage())
        XCTAssertEqual(closeCode(try serverFrames(s1.output)[0]), 1002)
        let (c2, s2) = connection(clientFrame(.text, [0x61], fin: false) + clientFrame(.text, [0x62]))
        XCTAssertNil(try c2.readMessage())
        XCTAssertEqual(closeCode(try serverFrames(s2.output)[0]), 1002)
    }

    func testInvalidCloseCodesAreAnswered1002() throws {
        for payload: [UInt8] in [[0x03], [0x03, 0xED], [0x0B, 0xB7, 0xFF]] {  // 1 byte, 1005, 2999 + bad UTF-8
            let (c, s) = connection(clientFrame(.close, payload))
            XCTAssertNil(try c.readMessage())
            XCTAssertEqual(closeCode(try serverFrames(s.output)[0]), 1002, "\(payload)")
        }
    }

    func testStreamEndWithoutCloseIs1006AndLongReasonsAreClipped() throws {
        let (c, s) = connection([])
        XCTAssertNil(try c.readMessage())
        XCTAssertEqual(c.closeCode, 1006)
        c.close(code: 1008, reason: String(repeating: "é", count: 100))
        let f = try serverFrames(s.output)[0]
        XCTAssertLessThanOrEqual(f.payload.count, 125)
        XCTAssertNotNil(String(validating: f.payload[2...], as: UTF8.self))
    }
}
