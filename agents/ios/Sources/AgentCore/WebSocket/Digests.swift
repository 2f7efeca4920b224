/// SHA-1 (RFC 3174, for the websocket accept key only) and SHA-256 (FIPS 180-4, for the
/// constant-time token comparison), written here because Foundation on Linux has neither.
/// Both take and return bytes; tests check them against the published vectors.
public enum Digest {
    public static func sha1(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0]
        var w = [UInt32](repeating: 0, count: 80)
        for chunk in padded(message, bigEndianLength: true) {
            for t in 0..<16 { w[t] = chunk[t] }
            for t in 16..<80 { w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1) }
            var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4]
            for t in 0..<80 {
                let f: UInt32, k: UInt32
                switch t {
                case 0..<20: f = (b & c) | (~b & d); k = 0x5A82_7999
                case 20..<40: f = b ^ c ^ d; k = 0x6ED9_EBA1
                case 40..<60: f = (b & c) | (b & d) | (c & d); k = 0x8F1B_BCDC
                default: f = b ^ c ^ d; k = 0xCA62_C1D6
                }
                let temp = rotl(a, 5) &+ f &+ e &+ k &+ w[t]
                e = d; d = c; c = rotl(b, 30); b = a; a = temp
            }
            h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d; h[4] &+= e
        }
        return bytes(h)
    }

    private static let k256: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    public static func sha256(_ message: [UInt8]) -> [UInt8] {
        var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                           0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        var w = [UInt32](repeating: 0, count: 64)
        for chunk in padded(message, bigEndianLength: true) {
            for t in 0..<16 { w[t] = chunk[t] }
            for t in 16..<64 {
                let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
                let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
            }
            var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7]
            for t in 0..<64 {
                let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                let ch = (e & f) ^ (~e & g)
                let t1 = hh &+ s1 &+ ch &+ k256[t] &+ w[t]
                let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                let maj = (a & b) ^ (a & c) ^ (b & c)
                let t2 = s0 &+ maj
                hh = g; g = f; f = e; e = d &+ t1; d = c; c = b; b = a; a = t1 &+ t2
            }
            h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d
            h[4] &+= e; h[5] &+= f; h[6] &+= g; h[7] &+= hh
        }
        return bytes(h)
    }

    /// The message padded to 64-byte blocks (0x80, zeros, 64-bit big-endian bit length), as
    /// big-endian 32-bit words, one array of 16 per block.
    private static func padded(_ message: [UInt8], bigEndianLength: Bool) -> [[UInt32]] {
        var m = message
        let bitLength = UInt64(message.count) &* 8
        m.append(0x80)
        while m.count % 64 != 56 { m.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { m.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        var blocks: [[UInt32]] = []
        blocks.reserveCapacity(m.count / 64)
        var i = 0
        while i < m.count {
            var words = [UInt32](repeating: 0, count: 16)
            for t in 0..<16 {
                let j = i + t * 4
                words[t] = UInt32(m[j]) << 24 | UInt32(m[j + 1]) << 16 | UInt32(m[j + 2]) << 8 | UInt32(m[j + 3])
            }
            blocks.append(words)
            i += 64
        }
        return blocks
    }

    private static func bytes(_ words: [UInt32]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(words.count * 4)
        for word in words {
            out.append(UInt8(truncatingIfNeeded: word >> 24))
            out.append(UInt8(truncatingIfNeeded: word >> 16))
            out.append(UInt8(truncatingIfNeeded: word >> 8))
            out.append(UInt8(truncatingIfNeeded: word))
        }
        return out
    }

    @inline(__always) private static func rotl(_ x: UInt32, _ n: UInt32) -> UInt32 { x << n | x >> (32 - n) }
    @inline(__always) private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }

    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        var s = ""
        for b in bytes { s.append(digits[Int(b >> 4)]); s.append(digits[Int(b & 0xF)]) }
        return s
    }
}

/// RFC 4648 base64 with the standard alphabet and padding. `decode` is strict: it refuses
/// characters outside the alphabet, missing or misplaced padding, and non-zero pad bits.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let reverse: [Int16] = {
        var r = [Int16](repeating: -1, count: 256)
        for (i, c) in alphabet.enumerated() { r[Int(c)] = Int16(i) }
        return r
    }()

    public static func encode(_ data: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((data.count + 2) / 3 * 4)
        var i = 0
        while i + 3 <= data.count {
            let n = UInt32(data[i]) << 16 | UInt32(data[i + 1]) << 8 | UInt32(data[i + 2])
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)])
            out.append(alphabet[Int(n & 63)])
            i += 3
        }
        let rest = data.count - i
        if rest == 1 {
            let n = UInt32(data[i]) << 16
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(UInt8(ascii: "="))
            out.append(UInt8(ascii: "="))
        } else if rest == 2 {
            let n = UInt32(data[i]) << 16 | UInt32(data[i + 1]) << 8
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)])
            out.append(UInt8(ascii: "="))
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func decode(_ text: String) -> [UInt8]? {
        let s = Array(text.utf8)
        if s.count % 4 != 0 { return nil }
        var out = [UInt8]()
        out.reserveCapacity(s.count / 4 * 3)
        var i = 0
        while i < s.count {
            let last = i + 4 == s.count
            var v = [Int16](repeating: 0, count: 4)
            var pads = 0
            for k in 0..<4 {
                let c = s[i + k]
                if c == UInt8(ascii: "=") {
                    guard last, k >= 2 else { return nil }
                    pads += 1
                    v[k] = 0
                } else {
                    if pads > 0 { return nil }
                    let d = reverse[Int(c)]
                    if d < 0 { return nil }
                    v[k] = d
                }
            }
            let n = UInt32(v[0]) << 18 | UInt32(v[1]) << 12 | UInt32(v[2]) << 6 | UInt32(v[3])
            out.append(UInt8(truncatingIfNeeded: n >> 16))
            if pads < 2 { out.append(UInt8(truncatingIfNeeded: n >> 8)) } else if n & 0xFFFF != 0 { return nil }
            if pads < 1 { out.append(UInt8(truncatingIfNeeded: n)) } else if pads == 1, n & 0xFF != 0 { return nil }
            i += 4
        }
        return out
    }
}

/// Compares a presented bearer token with the configured one in constant time: both sides are
/// hashed to fixed-width SHA-256 digests first and every byte is compared, so neither the content
/// nor the length of the secret leaks through timing. The token is never logged or exposed.
public final class TokenCheck: Sendable {
    private let expected: [UInt8]

    public init(_ token: String) throws {
        guard !token.isEmpty else { throw JsonError("an agent token is required") }
        expected = Digest.sha256(Array(token.utf8))
    }

    public func matches(_ presented: String?) -> Bool {
        let digest = Digest.sha256(Array((presented ?? "").utf8))
        var diff: UInt8 = 0
        for i in 0..<expected.count { diff |= digest[i] ^ expected[i] }
        return diff == 0 && presented != nil
    }
}
