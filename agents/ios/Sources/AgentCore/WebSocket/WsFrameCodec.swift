/// RFC 6455 §5 framing: encoding and strict decoding of single frames.
///
/// Invariants: a decoded frame never exceeds `maxPayload` bytes (checked from the header before
/// any payload is read, so a huge length cannot make us allocate); reserved bits, unknown
/// opcodes, fragmented or oversized (> 125) control frames and a 64-bit length with the top bit
/// set are protocol errors (1002); a missing mask is a protocol error when the reader requires
/// masking (a server reading client frames always does).

public enum CloseCode {
    public static let normal = 1000
    public static let goingAway = 1001
    public static let protocolError = 1002
    public static let unsupportedData = 1003
    /// Reserved: "no status code present"; never sent on the wire.
    public static let noStatus = 1005
    /// Reserved: "closed without a close frame"; never sent on the wire.
    public static let abnormal = 1006
    public static let invalidPayload = 1007
    public static let policyViolation = 1008
    public static let messageTooBig = 1009
    public static let internalError = 1011

    /// True when `code` may appear in a close frame received from a peer.
    public static func isValidOnWire(_ code: Int) -> Bool {
        if (3000...4999).contains(code) { return true }
        return [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011].contains(code)
    }
}

public enum Opcode: UInt8, Sendable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    var isControl: Bool { rawValue & 0x8 != 0 }
}

public struct WsFrame: Equatable, Sendable {
    public var fin: Bool
    public var opcode: Opcode
    public var payload: [UInt8]
    public var masked: Bool
}

/// A violation of the websocket protocol by the peer; the connection answers it with `closeCode`.
public struct WsProtocolError: Error, Equatable {
    public let closeCode: Int
    public let message: String
}

public enum WsFrameCodec {
    public static let maxControlPayload = 125

    /// One frame; `maskKey` nil for server frames, 4 bytes for client frames.
    public static func encode(fin: Bool, opcode: Opcode, payload: [UInt8], maskKey: [UInt8]? = nil) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(payload.count + 14)
        out.append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
        let len = payload.count
        if len <= 125 {
            out.append(maskBit | UInt8(len))
        } else if len <= 0xFFFF {
            out.append(maskBit | 126)
            out.append(UInt8(len >> 8))
            out.append(UInt8(len & 0xFF))
        } else {
            out.append(maskBit | 127)
            let l = UInt64(len)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: l >> UInt64(shift))) }
        }
        if let key = maskKey {
            precondition(key.count == 4, "mask key must be 4 bytes")
            out.append(contentsOf: key)
            var masked = payload
            applyMask(&masked, key)
            out.append(contentsOf: masked)
        } else {
            out.append(contentsOf: payload)
        }
        return out
    }

    /// XORs `data` in place with the 4-byte masking key (masking is its own inverse).
    public static func applyMask(_ data: inout [UInt8], _ key: [UInt8]) {
        for i in 0..<data.count { data[i] ^= key[i & 3] }
    }

    /// Reads one frame. Nil on a clean end of stream before the first header byte; an end of
    /// stream inside a frame throws `StreamError.closed`.
    public static func read(_ reader: BufferedReader, requireMask: Bool, maxPayload: Int) throws -> WsFrame? {
        guard let b0 = try reader.readByte() else { return nil }
        guard let b1 = try reader.readByte() else { throw StreamError.closed }
        let fin = b0 & 0x80 != 0
        if b0 & 0x70 != 0 { throw WsProtocolError(closeCode: CloseCode.protocolError, message: "reserved bits set") }
        guard let opcode = Opcode(rawValue: b0 & 0x0F) else {
            throw WsProtocolError(closeCode: CloseCode.protocolError, message: "unknown opcode \(b0 & 0x0F)")
        }
        let masked = b1 & 0x80 != 0
        if requireMask && !masked {
            throw WsProtocolError(closeCode: CloseCode.protocolError, message: "client frame not masked")
        }
        var len = UInt64(b1 & 0x7F)
        if len == 126 {
            let b = try reader.readExactly(2)
            len = UInt64(b[0]) << 8 | UInt64(b[1])
        } else if len == 127 {
            let b = try reader.readExactly(8)
            len = b.reduce(0) { $0 << 8 | UInt64($1) }
            if len >> 63 != 0 {
                throw WsProtocolError(closeCode: CloseCode.protocolError, message: "64-bit length top bit set")
            }
        }
        if opcode.isControl && (!fin || len > UInt64(maxControlPayload)) {
            throw WsProtocolError(closeCode: CloseCode.protocolError,
                                  message: "control frame fragmented or longer than 125 bytes")
        }
        if len > UInt64(maxPayload) {
            throw WsProtocolError(closeCode: CloseCode.messageTooBig, message: "frame of \(len) bytes exceeds \(maxPayload)")
        }
        let key = masked ? try reader.readExactly(4) : nil
        var payload = try reader.readExactly(Int(len))
        if let key = key { applyMask(&payload, key) }
        return WsFrame(fin: fin, opcode: opcode, payload: payload, masked: masked)
    }
}
