/// A JSON value with its object keys in insertion order, a strict parser and a compact writer.
///
/// Invariants: the parser accepts exactly RFC 8259 JSON (no comments, no trailing commas, no
/// NaN/Infinity, no unescaped control characters, no lone surrogates) and refuses duplicate keys,
/// nesting deeper than `Json.maxDepth` and trailing data; integers without fraction or exponent
/// that fit in Int64 are `.int`, every other number is `.double`. The writer emits keys in the
/// order they were inserted and the same value always encodes to the same text, so a fingerprint
/// of a tree is its encoding.
public enum Json: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([Json])
    case object(JsonObject)

    /// Deeper nesting is refused when parsing (hostile input must not exhaust the stack).
    public static let maxDepth = 64

    public static func parse(_ text: String, maxDepth: Int = Json.maxDepth) throws -> Json {
        var parser = JsonParser(Array(text.utf8), maxDepth: maxDepth)
        return try parser.document()
    }

    /// Compact encoding: no whitespace, keys in insertion order.
    public func encoded() -> String {
        var out = [UInt8]()
        out.reserveCapacity(256)
        JsonWriter.write(self, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

/// An object with insertion-ordered keys (the order is the encoding order).
public struct JsonObject: Equatable, Sendable {
    public private(set) var keys: [String] = []
    private var values: [String: Json] = [:]

    public init() {}

    public subscript(key: String) -> Json? {
        get { values[key] }
        set {
            if let v = newValue {
                if values.updateValue(v, forKey: key) == nil { keys.append(key) }
            } else if values.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    public var count: Int { keys.count }

    public static func == (a: JsonObject, b: JsonObject) -> Bool {
        // Equality ignores key order (JSON objects are unordered).
        a.values == b.values
    }

    /// Adds `key` unless `value` is nil.
    public mutating func put(_ key: String, _ value: Json?) {
        if let v = value { self[key] = v }
    }
}

/// A message that is not the JSON (or the shape) it must be.
public struct JsonError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

struct JsonParser {
    private let b: [UInt8]
    private var i = 0
    private var depth = 0
    private let maxDepth: Int

    init(_ bytes: [UInt8], maxDepth: Int) {
        b = bytes
        self.maxDepth = maxDepth
    }

    mutating func document() throws -> Json {
        skipSpace()
        let v = try value()
        skipSpace()
        if i != b.count { throw JsonError("trailing data after the JSON value") }
        return v
    }

    private mutating func skipSpace() {
        while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
    }

    private mutating func value() throws -> Json {
        guard i < b.count else { throw JsonError("unexpected end of JSON") }
        switch b[i] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw JsonError("unexpected character at offset \(i)")
        }
    }

    private mutating func literal(_ word: String) throws {
        for c in word.utf8 {
            guard i < b.count, b[i] == c else { throw JsonError("invalid literal at offset \(i)") }
            i += 1
        }
    }

    private mutating func enter() throws {
        depth += 1
        if depth > maxDepth { throw JsonError("nested deeper than \(maxDepth)") }
    }

    private mutating func object() throws -> Json {
        try enter()
        i += 1
        var obj = JsonObject()
        skipSpace()
        if i < b.count, b[i] == UInt8(ascii: "}") {
            i += 1
            depth -= 1
            return .object(obj)
        }
        while true {
            skipSpace()
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw JsonError("expected a key") }
            let key = try string()
            if obj[key] != nil { throw JsonError("duplicate key '\(key)'") }
            skipSpace()
            guard i < b.count, b[i] == UInt8(ascii: ":") else { throw JsonError("expected ':'") }
            i += 1
            skipSpace()
            obj[key] = try value()
            skipSpace()
            guard i < b.count else { throw JsonError("unterminated object") }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            if b[i] == UInt8(ascii: "}") { i += 1; break }
            throw JsonError("expected ',' or '}'")
        }
        depth -= 1
        return .object(obj)
    }

    private mutating func array() throws -> Json {
        try enter()
        i += 1
        var items: [Json] = []
        skipSpace()
        if i < b.count, b[i] == UInt8(ascii: "]") {
            i += 1
            depth -= 1
            return .array(items)
        }
        while true {
            skipSpace()
            items.append(try value())
            skipSpace()
            guard i < b.count else { throw JsonError("unterminated array") }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            if b[i] == UInt8(ascii: "]") { i += 1; break }
            throw JsonError("expected ',' or ']'")
        }
        depth -= 1
        return .array(items)
    }

    private mutating func hex4() throws -> UInt32 {
        guard i + 4 <= b.count else { throw JsonError("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = b[i]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw JsonError("bad hex digit in \\u escape")
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }

    private mutating func string() throws -> String {
        i += 1  // opening quote
        var out = [UInt8]()
        while true {
            guard i < b.count else { throw JsonError("unterminated string") }
            let c = b[i]
            if c == UInt8(ascii: "\"") { i += 1; break }
            if c < 0x20 { throw JsonError("control character in string") }
            if c != UInt8(ascii: "\\") {
                out.append(c)
                i += 1
                continue
            }
            i += 1
            guard i < b.count else { throw JsonError("unterminated escape") }
            let e = b[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    guard i + 1 < b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u")
                    else { throw JsonError("lone high surrogate") }
                    i += 2
                    let low = try hex4()
                    guard low >= 0xDC00 && low <= 0xDFFF else { throw JsonError("bad low surrogate") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                    throw JsonError("lone low surrogate")
                }
                guard let u = Unicode.Scalar(scalar) else { throw JsonError("invalid code point") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default:
                throw JsonError("invalid escape")
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else {
            throw JsonError("string is not valid UTF-8")
        }
        return s
    }

    private mutating func number() throws -> Json {
        let start = i
        var integral = true
        if b[i] == UInt8(ascii: "-") { i += 1 }
        guard i < b.count else { throw JsonError("truncated number") }
        if b[i] == UInt8(ascii: "0") {
            i += 1
        } else if b[i] >= UInt8(ascii: "1") && b[i] <= UInt8(ascii: "9") {
            while i < b.count, b[i] >= UInt8(ascii: "0") && b[i] <= UInt8(ascii: "9") { i += 1 }
        } else {
            throw JsonError("invalid number")
        }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            integral = false
            i += 1
            let digits = i
            while i < b.count, b[i] >= UInt8(ascii: "0") && b[i] <= UInt8(ascii: "9") { i += 1 }
            if i == digits { throw JsonError("invalid fraction") }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            integral = false
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            let digits = i
            while i < b.count, b[i] >= UInt8(ascii: "0") && b[i] <= UInt8(ascii: "9") { i += 1 }
            if i == digits { throw JsonError("invalid exponent") }
        }
        let text = String(decoding: b[start..<i], as: UTF8.self)
        if integral, let n = Int64(text) { return .int(n) }
        guard let d = Double(text), d.isFinite else { throw JsonError("number out of range") }
        return .double(d)
    }
}

enum JsonWriter {
    static func write(_ v: Json, into out: inout [UInt8]) {
        switch v {
        case .null: out.append(contentsOf: Array("null".utf8))
        case .bool(let x): out.append(contentsOf: Array((x ? "true" : "false").utf8))
        case .int(let n): out.append(contentsOf: Array(String(n).utf8))
        case .double(let d): out.append(contentsOf: Array(number(d).utf8))
        case .string(let s): string(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (k, item) in items.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let obj):
            out.append(UInt8(ascii: "{"))
            for (k, key) in obj.keys.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                string(key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(obj[key] ?? .null, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Finite doubles only (the types never hold others); integral values keep a ".0".
    static func number(_ d: Double) -> String {
        guard d.isFinite else { return "0" }
        return "\(d)"
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func string(_ s: String, into out: inout [UInt8]) {
        out.append(0x22)
        for c in s.utf8 {
            switch c {
            case 0x22: out.append(0x5C); out.append(0x22)
            case 0x5C: out.append(0x5C); out.append(0x5C)
            case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(0x5C); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(0x5C); out.append(UInt8(ascii: "t"))
            case 0..<0x20:
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hexDigits[Int(c >> 4)])
                out.append(hexDigits[Int(c & 0xF)])
            default: out.append(c)
            }
        }
        out.append(0x22)
    }
}
