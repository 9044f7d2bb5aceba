#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Strings, numbers and booleans, read from the text when a type asks for them.
extension IndexDecoder {
    func bool(_ entry: Int, at location: Location, key: (any CodingKey)?) throws -> Bool {
        switch kind(entry) {
        case .true: return true
        case .false: return false
        default: throw mismatch(Bool.self, entry, location, key)
        }
    }

    func string(_ entry: Int, at location: Location, key: (any CodingKey)?) throws -> String {
        switch kind(entry) {
        case .string: return stringValue(entry)
        case .null: throw null(String.self, location, key)
        default: throw mismatch(String.self, entry, location, key)
        }
    }

    /// The text of a string entry (a value or a member name), unescaped.
    func stringValue(_ entry: Int) -> String {
        let item = index.entries[entry]
        let text = index.text(of: item)
        return item.isEscaped ? Self.unescaped(text) : String(decoding: text, as: UTF8.self)
    }

    func integer<T: FixedWidthInteger>(_ entry: Int, as type: T.Type, at location: Location, key: (any CodingKey)?) throws -> T {
        switch kind(entry) {
        case .number:
            guard let value: T = Self.integer(index.text(of: index.entries[entry])) else {
                throw notRepresentable(type, location, key)
            }
            return value
        case .null: throw null(type, location, key)
        default: throw mismatch(type, entry, location, key)
        }
    }

    func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(
        _ entry: Int, as type: T.Type, at location: Location, key: (any CodingKey)?
    ) throws -> T {
        switch kind(entry) {
        case .number:
            let text = index.text(of: index.entries[entry])
            // A number of the JSON grammar: what `T(_:)` reads is exactly that.
            guard let value = T(String(decoding: text, as: UTF8.self)), value.isFinite,
                  value != 0 || Self.isZero(text)
            else { throw notRepresentable(type, location, key) }
            return value
        case .null:
            throw null(type, location, key)
        case .string:
            if case .convertFromString(let positiveInfinity, let negativeInfinity, let nan) = options.floats,
               !index.entries[entry].isEscaped {
                let text = stringValue(entry)
                if text == positiveInfinity { return .infinity }
                if text == negativeInfinity { return -.infinity }
                if text == nan { return .nan }
            }
            throw mismatch(type, entry, location, key)
        default:
            throw mismatch(type, entry, location, key)
        }
    }

    // MARK: - Foundation's types

    func date(_ entry: Int, at location: Location, key: (any CodingKey)?) throws -> Date {
        if kind(entry) == .null { throw null(Date.self, location, key) }
        switch options.dates {
        case .deferredToDate:
            return try with(entry, at: location, key: key) { try Date(from: self) }
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try floatingPoint(entry, as: Double.self, at: location, key: key))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try floatingPoint(entry, as: Double.self, at: location, key: key) / 1000)
        case .iso8601:
            let text = try string(entry, at: location, key: key)
            if #available(macOS 12, iOS 15, tvOS 15, watchOS 8, *) {
                guard let date = try? Date.ISO8601FormatStyle().parse(text) else {
                    throw DecodingMessage.corrupted(
                        "expected an ISO 8601 date, found a string that is not one", at: codingPath(location, key))
                }
                return date
            }
            return try decodedByTemplate(entry, as: Date.self, at: location, key: key)
        case .custom(let closure):
            return try with(entry, at: location, key: key) { try closure(self) }
        @unknown default:
            // `.formatted(DateFormatter)` where Foundation has it, or a strategy added later.
            return try decodedByTemplate(entry, as: Date.self, at: location, key: key)
        }
    }

    func data(_ entry: Int, at location: Location, key: (any CodingKey)?) throws -> Data {
        if kind(entry) == .null { throw null(Data.self, location, key) }
        switch options.data {
        case .deferredToData:
            return try with(entry, at: location, key: key) { try Data(from: self) }
        case .base64:
            guard kind(entry) == .string else { throw mismatch(String.self, entry, location, key) }
            guard let data = Data(base64Encoded: stringValue(entry)) else {
                throw DecodingMessage.corrupted("expected Base64 data, found a string that is not Base64", at: codingPath(location, key))
            }
            return data
        case .custom(let closure):
            return try with(entry, at: location, key: key) { try closure(self) }
        @unknown default:
            return try decodedByTemplate(entry, as: Data.self, at: location, key: key)
        }
    }

    func url(_ entry: Int, at location: Location, key: (any CodingKey)?) throws -> URL {
        let text = try string(entry, at: location, key: key)
        guard let url = URL(string: text) else {
            throw DecodingMessage.corrupted("expected URL, found a string that is not a URL", at: codingPath(location, key))
        }
        return url
    }

    func decimal(_ entry: Int, at location: Location, key: (any CodingKey)?) throws -> Decimal {
        switch kind(entry) {
        case .number:
            guard let value = Decimal(string: String(decoding: index.text(of: index.entries[entry]), as: UTF8.self)) else {
                throw notRepresentable(Decimal.self, location, key)
            }
            return value
        case .null:
            throw null(Decimal.self, location, key)
        default:
            throw mismatch(Decimal.self, entry, location, key)
        }
    }

    // MARK: - Reading text

    /// An integer from JSON number text, exactly: `34`, `-7`, and also `34.0`, `3.4e1` and `1e2`,
    /// which are integers too; nil when the number has a fraction or does not fit `T`.
    static func integer<T: FixedWidthInteger>(_ text: UnsafeRawBufferPointer) -> T? {
        var at = 0
        let negative = text.first == UInt8(ascii: "-")
        if negative { at = 1 }
        guard at < text.count else { return nil }
        var value: T = 0
        while at < text.count {
            let digit = text[at] &- UInt8(ascii: "0")
            guard digit < 10 else { return exactInteger(text) }
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, carry) = negative
                ? shifted.subtractingReportingOverflow(T(truncatingIfNeeded: digit))
                : shifted.addingReportingOverflow(T(truncatingIfNeeded: digit))
            guard !overflow, !carry else { return nil }
            value = next
            at += 1
        }
        return value
    }

    /// An integer from number text with a fraction or an exponent, when its value is one.
    private static func exactInteger<T: FixedWidthInteger>(_ text: UnsafeRawBufferPointer) -> T? {
        var digits: [UInt8] = []
        var fractionDigits = 0
        var exponent = 0
        var at = 0
        let negative = text.first == UInt8(ascii: "-")
        if negative { at = 1 }
        var inFraction = false
        while at < text.count {
            let byte = text[at]
            if byte == UInt8(ascii: ".") {
                inFraction = true
            } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                at += 1
                var exponentNegative = false
                if at < text.count, text[at] == UInt8(ascii: "-") || text[at] == UInt8(ascii: "+") {
                    exponentNegative = text[at] == UInt8(ascii: "-")
                    at += 1
                }
                while at < text.count {
                    let digit = Int(text[at] &- UInt8(ascii: "0"))
                    guard digit < 10 else { return nil }
                    exponent = min(exponent * 10 + digit, 100_000)
                    at += 1
                }
                if exponentNegative { exponent = -exponent }
                break
            } else {
                guard byte &- UInt8(ascii: "0") < 10 else { return nil }
                if !(digits.isEmpty && byte == UInt8(ascii: "0")) { digits.append(byte &- UInt8(ascii: "0")) }
                if inFraction { fractionDigits += 1 }
            }
            at += 1
        }
        // `digits` lost its leading zeros; the fraction's count still includes any it had.
        var scale = exponent - fractionDigits
        if scale < 0 {
            let dropped = -scale
            if dropped >= digits.count {
                return digits.allSatisfy { $0 == 0 } ? 0 : nil
            }
            guard digits.suffix(dropped).allSatisfy({ $0 == 0 }) else { return nil }
            digits.removeLast(dropped)
            scale = 0
        }
        if digits.isEmpty { return 0 }
        guard scale <= 40 else { return nil }
        var value: T = 0
        for digit in digits + repeatElement(0, count: scale) {
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, carry) = negative
                ? shifted.subtractingReportingOverflow(T(truncatingIfNeeded: digit))
                : shifted.addingReportingOverflow(T(truncatingIfNeeded: digit))
            guard !overflow, !carry else { return nil }
            value = next
        }
        return value
    }

    /// Whether number text stands for zero (a real that reads as 0 only when it is one).
    static func isZero(_ text: UnsafeRawBufferPointer) -> Bool {
        for byte in text {
            if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return true }
            if byte >= UInt8(ascii: "1") && byte <= UInt8(ascii: "9") { return false }
        }
        return true
    }

    /// A JSON string's content with its escapes resolved. A lone surrogate, which the engine never
    /// writes, becomes U+FFFD.
    static func unescaped(_ text: UnsafeRawBufferPointer) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var at = 0
        func hex4(_ from: Int) -> UInt32? {
            guard from + 4 <= text.count else { return nil }
            var value: UInt32 = 0
            for offset in 0..<4 {
                let byte = text[from + offset]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        while at < text.count {
            let byte = text[at]
            guard byte == UInt8(ascii: "\\"), at + 1 < text.count else {
                out.append(byte)
                at += 1
                continue
            }
            let escape = text[at + 1]
            at += 2
            switch escape {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar: Unicode.Scalar = "\u{FFFD}"
                if let unit = hex4(at) {
                    at += 4
                    if (0xD800..<0xDC00).contains(unit), at + 1 < text.count, text[at] == UInt8(ascii: "\\"),
                       text[at + 1] == UInt8(ascii: "u"), let low = hex4(at + 2), (0xDC00..<0xE000).contains(low) {
                        at += 6
                        scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)) ?? scalar
                    } else if let single = Unicode.Scalar(unit) {
                        scalar = single
                    }
                }
                UTF8.encode(scalar) { out.append($0) }
            default: out.append(escape)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// `[String: Value]`, which `JSONDecoder` decodes without converting its keys, whatever the key
/// strategy: the keys are data, not property names.
protocol StringKeyedDictionary {
    static func decodeMembers(
        _ entry: Int, decoder: IndexDecoder, at location: IndexDecoder.Location, key: (any CodingKey)?
    ) throws -> Self
}

extension Dictionary: StringKeyedDictionary where Key == String, Value: Decodable {
    static func decodeMembers(
        _ entry: Int, decoder: IndexDecoder, at location: IndexDecoder.Location, key: (any CodingKey)?
    ) throws -> Self {
        switch decoder.kind(entry) {
        case .object: break
        case .null: throw decoder.null([String: Any].self, location, key)
        default:
            throw DecodingError.typeMismatch([String: Any].self, DecodingError.Context(
                codingPath: decoder.codingPath(location, key),
                debugDescription: "Expected to decode \([String: Any].self) but found \(decoder.described(entry)) instead."))
        }
        var members = location
        members.extra.append(contentsOf: key.map { [$0] } ?? [])
        let object = decoder.index.entries[entry]
        var result: [String: Value] = [:]
        result.reserveCapacity(object.count)
        var name = entry + 1
        while name < object.end {
            let member = decoder.stringValue(name)
            let value = try decoder.unwrap(name + 1, as: Value.self, at: members, key: AnyCodingKey(stringValue: member))
            if result[member] == nil { result[member] = value }
            name = decoder.index.next(after: name + 1)
        }
        return result
    }
}
