import Foundation

/// Server side of the RFC 6455 opening handshake with bearer-token authentication.
///
/// Order of checks: the request head must fit in `maxHeadBytes` and parse as an HTTP/1.1 GET
/// (else 400); then the `Authorization: Bearer` token is checked (else 401, before anything
/// about the websocket upgrade is revealed); then Host, Upgrade, Connection,
/// Sec-WebSocket-Version 13 and a 16-byte base64 Sec-WebSocket-Key are required (else 400).
/// Only then is 101 sent. No extension or subprotocol is ever negotiated. Bytes after the blank
/// line stay in the `BufferedReader` for the frame decoder.
public enum WsHandshake {
    public static let maxHeadBytes = 8192
    private static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    public struct Outcome: Equatable {
        /// 101 on success.
        public let status: Int
        public let reason: String
        public let path: String?
        public var ok: Bool { status == 101 }
    }

    /// The Sec-WebSocket-Accept value for a client key (RFC 6455 §4.2.2).
    public static func acceptKey(_ clientKey: String) -> String {
        Base64.encode(Digest.sha1(Array((clientKey + guid).utf8)))
    }

    /// Reads the request head, answers it, and reports the outcome; never throws for bad input
    /// (only for I/O failures and read timeouts).
    public static func perform(_ reader: BufferedReader, tokens: TokenCheck) throws -> Outcome {
        guard let head = try readHead(reader) else {
            return try reject(reader.stream, 400, "request head missing, truncated or larger than 8 KiB", nil)
        }
        let lines = head.components(separatedBy: "\r\n")
        let request = lines[0].split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard request.count == 3, request[0] == "GET", request[2] == "HTTP/1.1", request[1].hasPrefix("/") else {
            return try reject(reader.stream, 400, "expected 'GET /path HTTP/1.1'", nil)
        }
        let path = request[1]
        var headers: [String: String] = [:]
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                return try reject(reader.stream, 400, "malformed header line", path)
            }
            let name = line[..<colon].trimmingSpaces().lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces()
            if let old = headers[name] { headers[name] = old + ", " + value } else { headers[name] = value }
        }
        if !tokens.matches(bearer(headers["authorization"])) {
            return try reject(reader.stream, 401, "missing or wrong bearer token", path)
        }
        if headers["host"] == nil { return try reject(reader.stream, 400, "Host header missing", path) }
        if !hasToken(headers["upgrade"], "websocket") {
            return try reject(reader.stream, 400, "Upgrade: websocket required", path)
        }
        if !hasToken(headers["connection"], "upgrade") {
            return try reject(reader.stream, 400, "Connection: Upgrade required", path)
        }
        if headers["sec-websocket-version"] != "13" {
            return try reject(reader.stream, 400, "Sec-WebSocket-Version 13 required", path)
        }
        guard let key = headers["sec-websocket-key"], Base64.decode(key)?.count == 16 else {
            return try reject(reader.stream, 400, "Sec-WebSocket-Key must be 16 bytes in base64", path)
        }
        let response = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(acceptKey(key))\r\n\r\n"
        try reader.stream.write(Array(response.utf8))
        return Outcome(status: 101, reason: "switching protocols", path: path)
    }

    private static func bearer(_ authorization: String?) -> String? {
        guard let v = authorization?.trimmingSpaces(), v.count >= 7, v.prefix(7).lowercased() == "bearer " else {
            return nil
        }
        return String(v.dropFirst(7)).trimmingSpaces()
    }

    private static func hasToken(_ value: String?, _ token: String) -> Bool {
        guard let v = value else { return false }
        return v.split(separator: ",").contains { $0.trimmingSpaces().lowercased() == token }
    }

    /// Up to the blank line, as ISO-8859-1 text; nil when the stream ends first or the head is
    /// too large.
    private static func readHead(_ reader: BufferedReader) throws -> String? {
        var buf = [UInt8]()
        while buf.count < maxHeadBytes {
            guard let b = try reader.readByte() else { return nil }
            buf.append(b)
            let n = buf.count
            if n >= 4, buf[n - 4] == 13, buf[n - 3] == 10, buf[n - 2] == 13, buf[n - 1] == 10 {
                return String(buf[0..<n - 4].map { Character(Unicode.Scalar($0)) })
            }
        }
        return nil
    }

    private static func reject(_ stream: ByteStream, _ status: Int, _ reason: String, _ path: String?) throws -> Outcome {
        let statusText = status == 401 ? "Unauthorized" : "Bad Request"
        let body = Array((reason + "\n").utf8)
        var head = "HTTP/1.1 \(status) \(statusText)\r\n"
        if status == 401 { head += "WWW-Authenticate: Bearer\r\n" }
        if reason.hasPrefix("Sec-WebSocket-Version") { head += "Sec-WebSocket-Version: 13\r\n" }
        head += "Content-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        try stream.write(Array(head.utf8) + body)
        return Outcome(status: status, reason: reason, path: path)
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (HTTP optional whitespace).
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
