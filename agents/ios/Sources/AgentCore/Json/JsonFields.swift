/// Strict reading of one JSON object's fields, as the hub's msgspec decoders read them.
///
/// Every accessor records the key it read; `finish()` then refuses any key that was not read
/// (unknown fields are errors). Types are exact: a boolean is never an integer, an integer is
/// never a string, an absent optional field yields its documented default. Errors name the field
/// path (`where.key`) so a `BAD_COMMAND` reply says what was wrong.
public struct JsonFields {
    private let obj: JsonObject
    private let whereName: String
    private var seen: Set<String> = []

    public init(_ value: Json, _ whereName: String) throws {
        guard case .object(let o) = value else { throw JsonError("\(whereName): expected an object") }
        obj = o
        self.whereName = whereName
    }

    private mutating func take(_ key: String) -> Json? {
        seen.insert(key)
        return obj[key]
    }

    private func bad(_ key: String, _ what: String) -> JsonError {
        JsonError("\(whereName).\(key): \(what)")
    }

    public mutating func reqString(_ key: String) throws -> String {
        guard let v = take(key) else { throw bad(key, "required") }
        guard case .string(let s) = v else { throw bad(key, "expected a string") }
        return s
    }

    public mutating func optString(_ key: String) throws -> String? {
        guard let v = take(key) else { return nil }
        if case .null = v { return nil }
        guard case .string(let s) = v else { throw bad(key, "expected a string") }
        return s
    }

    public mutating func reqInt(_ key: String) throws -> Int {
        guard let v = take(key) else { throw bad(key, "required") }
        return try int(v, key)
    }

    public mutating func optInt(_ key: String) throws -> Int? {
        guard let v = take(key) else { return nil }
        if case .null = v { return nil }
        return try int(v, key)
    }

    public mutating func reqNonNegInt(_ key: String) throws -> Int {
        let n = try reqInt(key)
        if n < 0 { throw bad(key, "must be >= 0") }
        return n
    }

    public mutating func optNonNegInt(_ key: String, _ dflt: Int) throws -> Int {
        guard let n = try optInt(key) else { return dflt }
        if n < 0 { throw bad(key, "must be >= 0") }
        return n
    }

    private func int(_ v: Json, _ key: String) throws -> Int {
        guard case .int(let n) = v else { throw bad(key, "expected an integer") }
        guard let x = Int(exactly: n) else { throw bad(key, "integer out of range") }
        return x
    }

    public mutating func optDouble(_ key: String) throws -> Double? {
        guard let v = take(key) else { return nil }
        switch v {
        case .null: return nil
        case .int(let n): return Double(n)
        case .double(let d): return d
        default: throw bad(key, "expected a number")
        }
    }

    public mutating func reqBool(_ key: String) throws -> Bool {
        guard let v = take(key) else { throw bad(key, "required") }
        guard case .bool(let x) = v else { throw bad(key, "expected a boolean") }
        return x
    }

    public mutating func optBool(_ key: String, _ dflt: Bool) throws -> Bool {
        guard let v = take(key) else { return dflt }
        guard case .bool(let x) = v else { throw bad(key, "expected a boolean") }
        return x
    }

    public mutating func optBoolOrNil(_ key: String) throws -> Bool? {
        guard let v = take(key) else { return nil }
        if case .null = v { return nil }
        guard case .bool(let x) = v else { throw bad(key, "expected a boolean") }
        return x
    }

    public mutating func reqValue(_ key: String) throws -> Json {
        guard let v = take(key) else { throw bad(key, "required") }
        return v
    }

    public mutating func optValue(_ key: String) -> Json? {
        guard let v = take(key) else { return nil }
        if case .null = v { return nil }
        return v
    }

    public mutating func reqArray(_ key: String) throws -> [Json] {
        guard let v = take(key) else { throw bad(key, "required") }
        guard case .array(let a) = v else { throw bad(key, "expected an array") }
        return a
    }

    public mutating func optArray(_ key: String) throws -> [Json] {
        guard let v = take(key) else { return [] }
        guard case .array(let a) = v else { throw bad(key, "expected an array") }
        return a
    }

    public mutating func optStrings(_ key: String) throws -> [String] {
        try optArray(key).enumerated().map { k, item in
            guard case .string(let s) = item else { throw bad("\(key)[\(k)]", "expected a string") }
            return s
        }
    }

    /// An array of integers, empty when absent.
    public mutating func optInts(_ key: String) throws -> [Int] {
        try optArray(key).enumerated().map { k, item in try int(item, "\(key)[\(k)]") }
    }

    /// An object mapping strings to integer arrays, in its key order; empty when absent.
    public mutating func optIntLists(_ key: String) throws -> [(String, [Int])] {
        guard let v = take(key) else { return [] }
        guard case .object(let o) = v else { throw bad(key, "expected an object") }
        return try o.keys.map { k in
            guard case .array(let a)? = o[k] else { throw bad("\(key).\(k)", "expected an array") }
            return (k, try a.enumerated().map { i, item in try int(item, "\(key).\(k)[\(i)]") })
        }
    }

    /// `[left, top, right, bottom]` as four integers, or nil when absent.
    public mutating func optBounds(_ key: String) throws -> Bounds? {
        guard let v = take(key) else { return nil }
        if case .null = v { return nil }
        guard case .array(let a) = v, a.count == 4 else { throw bad(key, "expected 4 integers") }
        var n = [Int]()
        for item in a {
            guard case .int(let x) = item, let i = Int(exactly: x) else {
                throw bad(key, "expected 4 integers")
            }
            n.append(i)
        }
        return Bounds(n[0], n[1], n[2], n[3])
    }

    /// Refuses any key that was not read.
    public func finish() throws {
        for key in obj.keys where !seen.contains(key) {
            throw JsonError("\(whereName): unknown field '\(key)'")
        }
    }
}
