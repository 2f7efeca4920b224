/// One accepted byte stream: a loopback TCP socket (on the host and inside the XCTest runner),
/// or an in-memory pipe in tests. The server core needs nothing else from the platform.
///
/// Contract: `read` blocks until at least one byte is available and returns how many were
/// stored (0 means the peer closed), or throws `StreamError.timeout` when the read timeout
/// passes without data; `write` writes every byte or throws; `close` is idempotent and wakes a
/// reader blocked in another thread.
public protocol ByteStream: AnyObject, Sendable {
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
    func write(_ bytes: [UInt8]) throws
    /// Read timeout in milliseconds, 0 for none.
    func setReadTimeout(ms: Int) throws
    func close()
}

public enum StreamError: Error, Equatable {
    case timeout
    case closed
    case io(String)
}

/// Buffered reading on top of a `ByteStream`, so the handshake can read up to the blank line
/// without losing the bytes of the first frame that may follow in the same read.
/// Used by one reader thread only.
public final class BufferedReader {
    public let stream: ByteStream
    private var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    private var start = 0
    private var end = 0

    public init(_ stream: ByteStream) { self.stream = stream }

    private func fill() throws -> Bool {
        start = 0
        end = try buffer.withUnsafeMutableBytes { try stream.read(into: $0) }
        return end > 0
    }

    /// The next byte, or nil at end of stream.
    public func readByte() throws -> UInt8? {
        if start == end, try !fill() { return nil }
        let b = buffer[start]
        start += 1
        return b
    }

    /// Exactly `count` bytes; throws `StreamError.closed` when the stream ends first.
    public func readExactly(_ count: Int) throws -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(count)
        while out.count < count {
            if start == end, try !fill() { throw StreamError.closed }
            let n = min(count - out.count, end - start)
            out.append(contentsOf: buffer[start..<start + n])
            start += n
        }
        return out
    }

    /// Bytes already read from the stream but not consumed.
    public var buffered: Int { end - start }
}
