import AgentCore

/// A greyscale PNG encoder (8-bit, stored deflate blocks, CRC-32 and Adler-32 written here):
/// enough for host mode's screenshots without any image library.
public enum PNGWriter {
    public static func grey(width: Int, height: Int, pixels: [UInt8]) -> [UInt8] {
        precondition(pixels.count == width * height, "one byte per pixel")
        var raw = [UInt8]()
        raw.reserveCapacity((width + 1) * height)
        for y in 0..<height {
            raw.append(0)  // filter: none
            raw.append(contentsOf: pixels[y * width..<(y + 1) * width])
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var i = 0
        repeat {
            let n = min(65535, raw.count - i)
            let last: UInt8 = i + n >= raw.count ? 1 : 0
            zlib.append(last)
            zlib.append(UInt8(n & 0xFF)); zlib.append(UInt8(n >> 8))
            zlib.append(UInt8(~n & 0xFF)); zlib.append(UInt8((~n >> 8) & 0xFF))
            zlib.append(contentsOf: raw[i..<i + n])
            i += n
        } while i < raw.count
        zlib.append(contentsOf: be32(adler32(raw)))
        var ihdr = be32(UInt32(width)) + be32(UInt32(height))
        ihdr += [8, 0, 0, 0, 0]  // depth 8, greyscale, deflate, no filter method, no interlace
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", ihdr)
        png += chunk("IDAT", zlib)
        png += chunk("IEND", [])
        return png
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let t = Array(type.utf8)
        return be32(UInt32(data.count)) + t + data + be32(crc32(t + data))
    }

    private static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    private static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for x in bytes {
            a = (a + UInt32(x)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }
}
