import AgentCore
import Foundation
import XCTest

/// A byte stream over fixed input; everything written is kept. Reads return at most `chunk`
/// bytes at a time so parsers are exercised across read boundaries.
final class MemoryStream: ByteStream, @unchecked Sendable {
    private var input: [UInt8]
    private var at = 0
    private let chunk: Int
    private let lock = NSLock()
    private(set) var output: [UInt8] = []
    private(set) var closed = false

    init(_ input: [UInt8], chunk: Int = 7) {
        self.input = input
        self.chunk = chunk
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        lock.lock()
        defer { lock.unlock() }
        let n = min(chunk, buffer.count, input.count - at)
        for i in 0..<n { buffer[i] = input[at + i] }
        at += n
        return n
    }

    func write(_ bytes: [UInt8]) throws {
        lock.lock()
        defer { lock.unlock() }
        if closed { throw StreamError.closed }
        output.append(contentsOf: bytes)
    }

    func setReadTimeout(ms: Int) throws {}

    func close() {
        lock.lock()
        closed = true
        lock.unlock()
    }

    var remaining: Int { input.count - at }
    var outputText: String { String(decoding: output, as: UTF8.self) }
}

/// Where the repository's files are (protocol fixtures), from this file's path.
enum Repo {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static func file(_ relative: String) -> URL { root.appendingPathComponent(relative) }
}

/// A frame a client would send: masked.
func clientFrame(_ opcode: Opcode, _ payload: [UInt8], fin: Bool = true) -> [UInt8] {
    WsFrameCodec.encode(fin: fin, opcode: opcode, payload: payload, maskKey: [0x11, 0x22, 0x33, 0x44])
}

/// Frames a server wrote, decoded.
func serverFrames(_ bytes: [UInt8]) throws -> [WsFrame] {
    let reader = BufferedReader(MemoryStream(bytes))
    var out: [WsFrame] = []
    while let f = try WsFrameCodec.read(reader, requireMask: false, maxPayload: 1 << 24) { out.append(f) }
    return out
}

func closeCode(_ f: WsFrame) -> Int { Int(f.payload[0]) << 8 | Int(f.payload[1]) }

/// A clock the test moves by hand.
final class ManualClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var now = 1000
    func nowMillis() -> Int { lock.lock(); defer { lock.unlock() }; return now }
    func advance(_ ms: Int) { lock.lock(); now += ms; lock.unlock() }
}
