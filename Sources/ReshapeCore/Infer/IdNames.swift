/// What kind of id a member name looks like, for telling a keyed collection (`{"<id>": {...}}`)
/// from an object whose members are fields. Each test is on the name alone.
enum IdName: String, CaseIterable, Sendable {
    /// Firebase's push ids: 20 characters from `[0-9A-Za-z_-]` starting with `-`
    /// (`-NxA1b2C3d4E5f6G7h8I`).
    case pushID = "Firebase push ids"
    /// Any other name that starts with `-` and goes on with letters, digits, `_` and `-`: keys
    /// written in Firebase's style (`-NxD1`).
    case firebaseKey = "Firebase-style keys"
    /// `123`, `0`, `-4`: the keys Firebase and PHP write for small integers.
    case number = "numbers"
    /// `3f2a...`: 8 or more hexadecimal digits with at least one digit.
    case hex = "hexadecimal hashes"
    /// `c56a4180-65aa-42ec-a945-5fd21dec0538`.
    case uuid = "UUIDs"
    /// `2024-05-01`, `2024-05-01T10:00:00Z`: dates as keys (daily buckets).
    case date = "ISO dates"
    /// 16 or more characters from base64 or base64url with both letters and digits and no
    /// separator words (`a8Hk2LmQp0ZxY7vB`): opaque ids (MongoDB, Stripe without prefix, Firestore).
    case opaque = "opaque ids"

    /// The kind of id `name` is, or nil for a name that reads as a field name.
    static func classify(_ name: String) -> IdName? {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 128 else { return nil }
        if isUUID(bytes) { return .uuid }
        if isDate(bytes) { return .date }
        if bytes[0] == UInt8(ascii: "-"), bytes.count >= 2, bytes.dropFirst().allSatisfy(isKeyByte) {
            if bytes.dropFirst().allSatisfy(isDigit) { return .number }
            return bytes.count == 20 ? .pushID : .firebaseKey
        }
        if bytes.allSatisfy(isDigit) { return .number }
        if bytes.count >= 8, bytes.allSatisfy(isHex), bytes.contains(where: isDigit) { return .hex }
        if bytes.count >= 16, bytes.allSatisfy(isKeyByte), bytes.contains(where: isDigit),
            bytes.contains(where: isLetter), !bytes.contains(UInt8(ascii: "_"))
        {
            return .opaque
        }
        return nil
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
    private static func isHex(_ byte: UInt8) -> Bool { isDigit(byte) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66) }
    private static func isKeyByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || isLetter(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    private static func isUUID(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else if !isHex(byte) {
                return false
            }
        }
        return true
    }

    /// `YYYY-MM-DD`, optionally followed by `T` and anything (a time).
    private static func isDate(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 10 else { return false }
        for index in 0..<10 {
            let byte = bytes[index]
            if index == 4 || index == 7 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else if !isDigit(byte) {
                return false
            }
        }
        return bytes.count == 10 || bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " ")
    }
}

/// How much a set of objects found at one place in the samples looks like keyed collections
/// rather than objects with fields: the score `reshape infer` documents (docs/infer.md).
///
///     score = 0.5 × ids + 0.25 × shape + 0.25 × variety
///
/// - `ids`: the share of distinct member names that look like ids (`IdName`);
/// - `shape`: how alike the member values are: for values that are objects, the mean over them
///   of the share of their member names that most of them have (1 when all have the same
///   names); for scalars, 1 when all are of one JSON type; 0 for a mix of objects and others;
/// - `variety`: with two or more objects, how rarely a name comes back from one object to the
///   next (1 − the mean share of the objects that have each name: a collection's ids differ from
///   one record to the next, an object's fields recur); with one object, the member count
///   against 10 (min(1, n / 10)).
///
/// A score of 0.5 or more makes the place a keyed collection. `--map` and `--object` decide a
/// place whatever its score.
struct CollectionScore {
    let score: Double
    let ids: Double
    let shape: Double
    let variety: Double
    /// The most common kind of id among the names, when at least one looks like one.
    let idKind: IdName?
    /// Distinct member names over all the objects.
    let names: Int

    static let threshold = 0.5

    init(_ objects: [JSONObject]) {
        var counts: [String: Int] = [:]
        var order: [String] = []
        var values: [JSONValue] = []
        for object in objects {
            for member in object.members {
                if counts[member.key] == nil { order.append(member.key) }
                counts[member.key, default: 0] += 1
                values.append(member.value)
            }
        }
        names = order.count
        var kinds: [IdName: Int] = [:]
        for name in order { if let kind = IdName.classify(name) { kinds[kind, default: 0] += 1 } }
        let idCount = kinds.values.reduce(0, +)
        ids = order.isEmpty ? 0 : Double(idCount) / Double(order.count)
        idKind = kinds.max { $0.value < $1.value || ($0.value == $1.value && $0.key.rawValue > $1.key.rawValue) }?.key
        shape = Self.likeness(values)
        if objects.count >= 2 {
            let recurrence = order.isEmpty ? 1 : order.reduce(0.0) { $0 + Double(counts[$1, default: 0]) / Double(objects.count) } / Double(order.count)
            variety = 1 - recurrence
        } else {
            variety = min(1, Double(order.count) / 10)
        }
        score = 0.5 * ids + 0.25 * shape + 0.25 * variety
    }

    /// 1 when the values are alike (objects with the same names, or scalars of one type).
    private static func likeness(_ values: [JSONValue]) -> Double {
        let present = values.filter { !$0.isNull }
        guard !present.isEmpty else { return 0 }
        let objects = present.compactMap(\.objectValue)
        if objects.count == present.count {
            var counts: [String: Int] = [:]
            for object in objects { for key in object.keys { counts[key, default: 0] += 1 } }
            let common = Set(counts.filter { 2 * $0.value >= objects.count }.keys)
            var total = 0.0
            for object in objects {
                let keys = Set(object.keys)
                let union = keys.union(common).count
                total += union == 0 ? 1 : Double(keys.intersection(common).count) / Double(union)
            }
            return total / Double(objects.count)
        }
        guard objects.isEmpty else { return 0 }
        let first = ValueKind(present[0])
        return present.allSatisfy { ValueKind($0) == first } ? 1 : 0
    }
}

/// A JSON value's kind, numbers as one.
enum ValueKind: Hashable {
    case null, bool, number, string, array, object

    init(_ value: JSONValue) {
        switch value {
        case .null: self = .null
        case .bool: self = .bool
        case .integer, .double, .number: self = .number
        case .string: self = .string
        case .array: self = .array
        case .object: self = .object
        }
    }
}
