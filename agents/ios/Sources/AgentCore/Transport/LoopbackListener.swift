import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP listener on the loopback interface only, with BSD sockets: they work on Linux (host
/// mode, tests) and inside an XCTest runner on iOS alike, so the bytes a real device exchanges
/// pass through exactly the framing code the tests here exercise.
///
/// Invariants: binds 127.0.0.1 — and, only when asked (`ipv6`), ::1 on the same port, in case a
/// usbmux connect arrives over IPv6 on some iOS release (unverified) — never any other address;
/// `accept` hands each
/// connection to `onConnection` on its own thread; `stop` closes the listening sockets, which
/// ends the accept loops. Connections already accepted belong to their handlers.
public final class LoopbackListener: @unchecked Sendable {
    public let port: Int
    private var fds: [Int32]
    private let lock = NSLock()
    private var stopped = false

    /// Binds now (port 0 picks a free port; `port` then holds the real one). Throws when the
    /// port is taken.
    public init(port: Int, ipv6: Bool = false) throws {
        let v4 = try Self.bindV4(port)
        var bound = v4.1
        var all = [v4.0]
        if ipv6, let v6 = try? Self.bindV6(bound) { all.append(v6) }
        if bound == 0 { bound = port }
        self.port = bound
        fds = all
    }

    /// Accepts until `stop`, one thread per accept loop and per connection.
    public func start(onConnection: @escaping @Sendable (SocketStream) -> Void) {
        for fd in fds {
            let t = Thread { [self] in self.acceptLoop(fd, onConnection) }
            t.name = "mobridge-accept"
            t.start()
        }
    }

    private func acceptLoop(_ fd: Int32, _ handler: @escaping @Sendable (SocketStream) -> Void) {
        while true {
            let client = Glue.accept(fd)
            if client < 0 {
                if errno == EINTR { continue }
                lock.lock()
                let done = stopped
                lock.unlock()
                if done { return }
                if errno == EMFILE || errno == ENFILE { Thread.sleep(forTimeInterval: 0.1); continue }
                return
            }
            let stream = SocketStream(fd: client)
            let t = Thread { handler(stream) }
            t.name = "mobridge-conn"
            t.start()
        }
    }

    public func stop() {
        lock.lock()
        if stopped { lock.unlock(); return }
        stopped = true
        let all = fds
        fds = []
        lock.unlock()
        for fd in all {
            _ = Glue.shutdown(fd)
            _ = Glue.close(fd)
        }
    }

    private static func fail(_ what: String) -> StreamError {
        StreamError.io("\(what): \(String(cString: strerror(errno)))")
    }

    private static func bindV4(_ port: Int) throws -> (Int32, Int) {
        let fd = Glue.socket(AF_INET)
        if fd < 0 { throw fail("socket") }
        Glue.setReuseAddress(fd)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port)).bigEndian
        addr.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        #if canImport(Darwin)
        addr.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glue.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if rc != 0 || Glue.listen(fd, 16) != 0 {
            let e = fail("bind 127.0.0.1:\(port)")
            _ = Glue.close(fd)
            throw e
        }
        var got = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &got) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        return (fd, Int(UInt16(bigEndian: got.sin_port)))
    }

    private static func bindV6(_ port: Int) throws -> Int32 {
        let fd = Glue.socket(AF_INET6)
        if fd < 0 { throw fail("socket") }
        Glue.setReuseAddress(fd)
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in6()
        addr.sin6_family = sa_family_t(AF_INET6)
        addr.sin6_port = in_port_t(UInt16(port)).bigEndian
        addr.sin6_addr = in6addr_loopback
        #if canImport(Darwin)
        addr.sin6_len = UInt8(MemoryLayout<sockaddr_in6>.size)
        #endif
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glue.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
            }
        }
        if rc != 0 || Glue.listen(fd, 16) != 0 {
            _ = Glue.close(fd)
            throw fail("bind [::1]:\(port)")
        }
        return fd
    }
}

/// An accepted TCP connection as a `ByteStream`.
public final class SocketStream: ByteStream, @unchecked Sendable {
    private let fd: Int32
    private let lock = NSLock()
    private var closed = false

    public init(fd: Int32) {
        self.fd = fd
        Glue.noDelay(fd)
        Glue.noSigPipe(fd)
    }

    /// A client connection to 127.0.0.1:`port` (tests play the hub with it).
    public static func connect(port: Int) throws -> SocketStream {
        let fd = Glue.socket(AF_INET)
        if fd < 0 { throw StreamError.io("socket") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port)).bigEndian
        addr.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        #if canImport(Darwin)
        addr.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glue.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if rc != 0 {
            _ = Glue.close(fd)
            throw StreamError.io("connect 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
        }
        return SocketStream(fd: fd)
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let n = Glue.recv(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { throw StreamError.timeout }
            if isClosed { return 0 }
            throw StreamError.io("recv: \(String(cString: strerror(errno)))")
        }
    }

    public func write(_ bytes: [UInt8]) throws {
        var off = 0
        try bytes.withUnsafeBytes { raw in
            while off < raw.count {
                let n = Glue.send(fd, raw.baseAddress! + off, raw.count - off)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw StreamError.io("send: \(String(cString: strerror(errno)))")
                }
                off += n
            }
        }
    }

    public func setReadTimeout(ms: Int) throws {
        var tv = timeval()
        tv.tv_sec = ms / 1000
        #if canImport(Darwin)
        tv.tv_usec = Int32(ms % 1000 * 1000)
        #else
        tv.tv_usec = ms % 1000 * 1000
        #endif
        let rc = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        if rc != 0 { throw StreamError.io("setsockopt SO_RCVTIMEO") }
    }

    private var isClosed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return closed
    }

    /// Shuts both directions down (waking a blocked reader), then releases the descriptor.
    public func close() {
        lock.lock()
        if closed { lock.unlock(); return }
        closed = true
        lock.unlock()
        _ = Glue.shutdown(fd)
        _ = Glue.close(fd)
    }
}

/// The C calls, with the platform differences in one place.
enum Glue {
    static func socket(_ family: Int32) -> Int32 {
        #if canImport(Glibc)
        return Glibc.socket(family, Int32(SOCK_STREAM.rawValue), 0)
        #else
        return Darwin.socket(family, SOCK_STREAM, 0)
        #endif
    }

    static func setReuseAddress(_ fd: Int32) {
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    static func noDelay(_ fd: Int32) {
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    static func noSigPipe(_ fd: Int32) {
        #if canImport(Darwin)
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    static func bind(_ fd: Int32, _ addr: UnsafePointer<sockaddr>, _ len: socklen_t) -> Int32 {
        #if canImport(Glibc)
        return Glibc.bind(fd, addr, len)
        #else
        return Darwin.bind(fd, addr, len)
        #endif
    }

    static func listen(_ fd: Int32, _ backlog: Int32) -> Int32 {
        #if canImport(Glibc)
        return Glibc.listen(fd, backlog)
        #else
        return Darwin.listen(fd, backlog)
        #endif
    }

    static func connect(_ fd: Int32, _ addr: UnsafePointer<sockaddr>, _ len: socklen_t) -> Int32 {
        #if canImport(Glibc)
        return Glibc.connect(fd, addr, len)
        #else
        return Darwin.connect(fd, addr, len)
        #endif
    }

    static func accept(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
        return Glibc.accept(fd, nil, nil)
        #else
        return Darwin.accept(fd, nil, nil)
        #endif
    }

    static func recv(_ fd: Int32, _ buf: UnsafeMutableRawPointer?, _ len: Int) -> Int {
        #if canImport(Glibc)
        return Glibc.recv(fd, buf, len, 0)
        #else
        return Darwin.recv(fd, buf, len, 0)
        #endif
    }

    static func send(_ fd: Int32, _ buf: UnsafeRawPointer, _ len: Int) -> Int {
        #if canImport(Glibc)
        return Glibc.send(fd, buf, len, Int32(MSG_NOSIGNAL))
        #else
        return Darwin.send(fd, buf, len, 0)
        #endif
    }

    static func shutdown(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
        return Glibc.shutdown(fd, Int32(SHUT_RDWR))
        #else
        return Darwin.shutdown(fd, SHUT_RDWR)
        #endif
    }

    static func close(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
        return Glibc.close(fd)
        #else
        return Darwin.close(fd)
        #endif
    }
}
