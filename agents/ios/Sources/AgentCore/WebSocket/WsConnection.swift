import Foundation

/// One server-side websocket connection after a successful handshake, over any byte stream.
///
/// Invariants: `readMessage` returns whole messages as text (fragments reassembled, total capped
/// at `maxMessage`); pings are answered with a pong carrying the same payload while reading;
/// text and binary messages alike must be UTF-8 — invalid UTF-8 closes with 1007, oversized
/// frames or messages with 1009, protocol errors with 1002. Writes are serialized, so any
/// thread may send. Exactly one close frame is sent; after a close the connection never sends
/// data. Only one thread reads.
public final class WsConnection: @unchecked Sendable {
    private let reader: BufferedReader
    private let maxMessage: Int
    private let lock = NSLock()
    private var closeSent = false
    private var closeReceived = false
    private var code = CloseCode.abnormal
    private var reason = ""

    public init(reader: BufferedReader, maxMessage: Int) {
        self.reader = reader
        self.maxMessage = maxMessage
    }

    private var stream: ByteStream { reader.stream }

    /// The next complete message as text, or nil once the connection is closed (by either side
    /// or by a protocol error, which this method answers with the right close frame first).
    /// A read timeout is rethrown as `StreamError.timeout`.
    public func readMessage() throws -> String? {
        var message: [UInt8]?
        while true {
            let frame: WsFrame?
            do {
                frame = try WsFrameCodec.read(reader, requireMask: true, maxPayload: maxMessage)
            } catch let e as WsProtocolError {
                close(code: e.closeCode, reason: e.message)
                return nil
            } catch StreamError.closed {
                setEnded("stream ended inside a frame")
                return nil
            }
            guard let f = frame else {
                setEnded("stream ended without a close frame")
                return nil
            }
            switch f.opcode {
            case .ping:
                try? sendFrame(.pong, f.payload)
                continue
            case .pong:
                continue
            case .close:
                onClose(f.payload)
                return nil
            case .text, .binary:
                if message != nil {
                    close(code: CloseCode.protocolError, reason: "new message inside a fragmented one")
                    return nil
                }
                message = []
            case .continuation:
                if message == nil {
                    close(code: CloseCode.protocolError, reason: "continuation without a message")
                    return nil
                }
            }
            if message!.count + f.payload.count > maxMessage {
                close(code: CloseCode.messageTooBig, reason: "message exceeds \(maxMessage) bytes")
                return nil
            }
            message!.append(contentsOf: f.payload)
            if f.fin {
                guard let text = String(validating: message!, as: UTF8.self) else {
                    close(code: CloseCode.invalidPayload, reason: "text message is not valid UTF-8")
                    return nil
                }
                return text
            }
        }
    }

    /// Sends one text message as a single frame; throws once the connection is closed.
    public func sendText(_ text: String) throws {
        try sendFrame(.text, Array(text.utf8))
    }

    public func sendPing(_ payload: [UInt8] = []) throws {
        try sendFrame(.ping, payload)
    }

    /// Sends a close frame (once); the caller then closes the transport.
    public func close(code: Int, reason: String) {
        let r = Self.clip(reason)
        var payload: [UInt8] = [UInt8(code >> 8 & 0xFF), UInt8(code & 0xFF)]
        payload.append(contentsOf: r)
        lock.lock()
        defer { lock.unlock() }
        if closeSent { return }
        try? stream.write(WsFrameCodec.encode(fin: true, opcode: .close, payload: payload))
        closeSent = true
        if !closeReceived {
            self.code = code
            self.reason = reason
        }
    }

    public var isOpen: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !closeSent && !closeReceived
    }

    /// The close code received from the peer or sent by us (1006 when the stream just ended).
    public var closeCode: Int {
        lock.lock()
        defer { lock.unlock() }
        return code
    }

    public var closeReason: String {
        lock.lock()
        defer { lock.unlock() }
        return reason
    }

    private func setEnded(_ why: String) {
        lock.lock()
        if !closeSent && !closeReceived {
            code = CloseCode.abnormal
            reason = why
        }
        closeReceived = true
        lock.unlock()
    }

    private func onClose(_ payload: [UInt8]) {
        lock.lock()
        closeReceived = true
        lock.unlock()
        if payload.isEmpty {
            record(CloseCode.noStatus, "")
            close(code: CloseCode.normal, reason: "")
            return
        }
        let c = payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : -1
        let text = payload.count > 2 ? String(validating: payload[2...], as: UTF8.self) : ""
        if payload.count == 1 || !CloseCode.isValidOnWire(c) || text == nil {
            record(CloseCode.protocolError, "invalid close frame")
            close(code: CloseCode.protocolError, reason: "invalid close frame")
            return
        }
        record(c, text!)
        close(code: c, reason: "")
    }

    private func record(_ c: Int, _ r: String) {
        lock.lock()
        code = c
        reason = r
        lock.unlock()
    }

    private func sendFrame(_ opcode: Opcode, _ payload: [UInt8]) throws {
        lock.lock()
        defer { lock.unlock() }
        if closeSent { throw StreamError.closed }
        try stream.write(WsFrameCodec.encode(fin: true, opcode: opcode, payload: payload))
    }

    /// The reason's UTF-8 bytes, cut at a character boundary so the close payload stays <= 125.
    static func clip(_ reason: String) -> [UInt8] {
        var r = reason
        while r.utf8.count > WsFrameCodec.maxControlPayload - 2 { r.removeLast() }
        return Array(r.utf8)
    }
}
