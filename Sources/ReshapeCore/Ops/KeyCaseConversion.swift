/// Foundation's key conversions, reproduced exactly so that `convertKeys` renames members the way
/// `JSONDecoder.KeyDecodingStrategy.convertFromSnakeCase` and
/// `JSONEncoder.KeyEncodingStrategy.convertToSnakeCase` would (swift-foundation's algorithms,
/// written again here because the engine does not link Foundation).
///
/// ASCII names, nearly all real ones, take a byte-level path that gives the same result without
/// creating strings; tests compare both paths with Foundation itself.
enum KeyCaseConversion {
    /// `one_two_three` → `oneTwoThree`; leading and trailing underscores are kept. A `-` is read
    /// as `_` (`first-name` → `firstName`), leading and trailing ones kept as they are. Returns
    /// nil when the name does not change.
    static func camelCase(_ key: KeyBytes) -> [UInt8]? {
        guard key.contains(UInt8(ascii: "-")) else { return foundationCamelCase(key) }
        var read = hyphensAsUnderscores(key)
        let converted = read.withUnsafeBytes { foundationCamelCase($0) } ?? read
        read = converted
        // Foundation keeps the separators before the first word and after the last as they are.
        var index = 0
        while index < key.count, isSeparator(key[index]) {
            read[index] = key[index]
            index += 1
        }
        var back = 1
        while back <= key.count - index, isSeparator(key[key.count - back]) {
            read[read.count - back] = key[key.count - back]
            back += 1
        }
        return read.elementsEqual(key) ? nil : read
    }

    /// `oneTwoThree` → `one_two_three`, `myURLProperty` → `my_url_property`; a `-` becomes `_`
    /// (`first-name` → `first_name`). Returns nil when the name does not change.
    static func snakeCase(_ key: KeyBytes) -> [UInt8]? {
        guard key.contains(UInt8(ascii: "-")) else { return foundationSnakeCase(key) }
        let read = hyphensAsUnderscores(key)
        let converted = read.withUnsafeBytes { foundationSnakeCase($0) } ?? read
        return converted.elementsEqual(key) ? nil : converted
    }

    /// `oneTwoThree` → `one-two-three`, `my_url` → `my-url`: snake_case with `-` for `_`.
    /// Returns nil when the name does not change.
    static func kebabCase(_ key: KeyBytes) -> [UInt8]? {
        var converted = snakeCase(key) ?? Array(key)
        for index in converted.indices where converted[index] == UInt8(ascii: "_") {
            converted[index] = UInt8(ascii: "-")
        }
        return converted.elementsEqual(key) ? nil : converted
    }

    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    private static func hyphensAsUnderscores(_ key: KeyBytes) -> [UInt8] {
        key.map { $0 == UInt8(ascii: "-") ? UInt8(ascii: "_") : $0 }
    }

    /// Foundation's `convertFromSnakeCase`, or nil when the name does not change.
    private static func foundationCamelCase(_ key: KeyBytes) -> [UInt8]? {
        guard key.contains(UInt8(ascii: "_")) else { return nil }
        if isPlainASCII(key) { return asciiCamelCase(key) }
        let converted = fromSnakeCase(String(jsonBytes: key))
        let bytes = Array(converted.utf8)
        return bytes.elementsEqual(key) ? nil : bytes
    }

    /// Foundation's `convertToSnakeCase`, or nil when the name does not change.
    private static func foundationSnakeCase(_ key: KeyBytes) -> [UInt8]? {
        if isPlainASCII(key) {
            guard key.contains(where: isASCIIUppercase) else { return nil }
            return asciiSnakeCase(key)
        }
        let converted = toSnakeCase(String(jsonBytes: key))
        let bytes = Array(converted.utf8)
        return bytes.elementsEqual(key) ? nil : bytes
    }

    // MARK: - Foundation's algorithms on Swift strings

    /// swift-foundation's `JSONDecoder.KeyDecodingStrategy._convertFromSnakeCase`.
    static func fromSnakeCase(_ key: String) -> String {
        guard !key.isEmpty else { return key }
        guard let firstNonUnderscore = key.firstIndex(where: { $0 != "_" }) else { return key }
        var lastNonUnderscore = key.index(before: key.endIndex)
        while lastNonUnderscore > firstNonUnderscore && key[lastNonUnderscore] == "_" {
            key.formIndex(before: &lastNonUnderscore)
        }
        let keyRange = firstNonUnderscore...lastNonUnderscore
        let leading = key[key.startIndex..<firstNonUnderscore]
        let trailing = key[key.index(after: lastNonUnderscore)..<key.endIndex]
        let components = key[keyRange].split(separator: "_")
        let joined: String
        if components.count == 1 {
            joined = String(key[keyRange])
        } else {
            joined = ([components[0].lowercased()] + components[1...].map { capitalized(String($0)) }).joined()
        }
        return String(leading) + joined + String(trailing)
    }

    /// swift-foundation's `JSONEncoder.KeyEncodingStrategy._convertToSnakeCase`: words split at a
    /// lower-to-upper transition and before the last capital of a run of capitals.
    static func toSnakeCase(_ key: String) -> String {
        guard !key.isEmpty else { return key }
        var words: [Range<String.Index>] = []
        var wordStart = key.startIndex
        var searchRange = key.index(after: wordStart)..<key.endIndex
        while let upper = firstScalar(in: key, searchRange, where: isUppercaseLetter) {
            words.append(wordStart..<upper.lowerBound)
            searchRange = upper.lowerBound..<searchRange.upperBound
            guard let lower = firstScalar(in: key, searchRange, where: isLowercaseLetter) else {
                wordStart = searchRange.lowerBound
                break
            }
            let afterCapital = key.index(after: upper.lowerBound)
            if lower.lowerBound == afterCapital {
                wordStart = upper.lowerBound
            } else {
                let beforeLower = key.index(before: lower.lowerBound)
                words.append(upper.lowerBound..<beforeLower)
                wordStart = beforeLower
            }
            searchRange = lower.upperBound..<searchRange.upperBound
        }
        words.append(wordStart..<searchRange.upperBound)
        return words.map { key[$0].lowercased() }.joined(separator: "_")
    }

    /// swift-foundation's `String._capitalized()`: the first cased letter of each word goes to
    /// title case, the rest of the word to lower case.
    static func capitalized(_ text: String) -> String {
        var result = ""
        var isLastCased = false
        for scalar in text.unicodeScalars {
            let properties = scalar.properties
            if isUppercaseLetter(scalar) {
                result += isLastCased ? properties.lowercaseMapping : String(scalar)
                isLastCased = true
            } else if isLowercaseLetter(scalar) {
                result += isLastCased ? String(scalar) : properties.titlecaseMapping
                isLastCased = true
            } else if !isCaseIgnorable(scalar) {
                result.unicodeScalars.append(scalar)
                isLastCased = false
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func firstScalar(
        in key: String, _ range: Range<String.Index>, where predicate: (Unicode.Scalar) -> Bool
    ) -> Range<String.Index>? {
        let scalars = key.unicodeScalars
        var index = range.lowerBound
        while index < range.upperBound {
            let next = scalars.index(after: index)
            if predicate(scalars[index]) { return index..<next }
            index = next
        }
        return nil
    }

    /// Foundation's case-ignorable set, the classic Unicode definition (D47 before Unicode 5.2):
    /// categories Mn, Me, Cf, Lm and Sk, plus apostrophe, soft hyphen and right single quotation
    /// mark. Unlike today's Case_Ignorable it leaves out `.`, `:` and other mid-word punctuation,
    /// which matters: `a_b.c` becomes `aB.C`.
    private static func isCaseIgnorable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .modifierLetter, .modifierSymbol: return true
        default: return scalar.value == 0x27 || scalar.value == 0xAD || scalar.value == 0x2019
        }
    }

    /// Foundation's uppercase letter set: general categories Lu and Lt.
    private static func isUppercaseLetter(_ scalar: Unicode.Scalar) -> Bool {
        let category = scalar.properties.generalCategory
        return category == .uppercaseLetter || category == .titlecaseLetter
    }

    /// Foundation's lowercase letter set: general category Ll.
    private static func isLowercaseLetter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .lowercaseLetter
    }

    // MARK: - ASCII

    /// ASCII without `\r` (which joins a following `\n` into one Character, so such names take
    /// the string path).
    private static func isPlainASCII(_ key: KeyBytes) -> Bool {
        key.allSatisfy { $0 < 0x80 && $0 != UInt8(ascii: "\r") }
    }

    /// The ASCII members of `isCaseIgnorable`: `'`, `^` and `` ` ``.
    private static func isASCIICaseIgnorable(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "'") || byte == UInt8(ascii: "^") || byte == UInt8(ascii: "`")
    }

    private static func isASCIIUppercase(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "A") < 26 }
    private static func isASCIILowercase(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "a") < 26 }
    private static func lowered(_ byte: UInt8) -> UInt8 { isASCIIUppercase(byte) ? byte | 0x20 : byte }
    private static func uppered(_ byte: UInt8) -> UInt8 { isASCIILowercase(byte) ? byte & ~0x20 : byte }

    private static func asciiCamelCase(_ key: KeyBytes) -> [UInt8]? {
        guard let first = key.firstIndex(where: { $0 != UInt8(ascii: "_") }) else { return nil }
        var last = key.count - 1
        while last > first && key[last] == UInt8(ascii: "_") { last -= 1 }
        let core = key[first...last]
        let components = core.split(separator: UInt8(ascii: "_"))
        guard components.count > 1 else { return nil }
        var result: [UInt8] = Array(key[..<first])
        result.reserveCapacity(key.count)
        result.append(contentsOf: components[0].map(lowered))
        for component in components.dropFirst() {
            var isLastCased = false
            for byte in component {
                if isASCIIUppercase(byte) {
                    result.append(isLastCased ? lowered(byte) : byte)
                    isLastCased = true
                } else if isASCIILowercase(byte) {
                    result.append(isLastCased ? byte : uppered(byte))
                    isLastCased = true
                } else {
                    result.append(byte)
                    if !isASCIICaseIgnorable(byte) { isLastCased = false }
                }
            }
        }
        result.append(contentsOf: key[(last + 1)...])
        return result.elementsEqual(key) ? nil : result
    }

    private static func asciiSnakeCase(_ key: KeyBytes) -> [UInt8]? {
        let count = key.count
        var words: [Range<Int>] = []
        var wordStart = 0
        var searchStart = 1
        while let upper = (searchStart..<count).first(where: { isASCIIUppercase(key[$0]) }) {
            words.append(wordStart..<upper)
            guard let lower = (upper..<count).first(where: { isASCIILowercase(key[$0]) }) else {
                wordStart = upper
                searchStart = count
                break
            }
            if lower == upper + 1 {
                wordStart = upper
            } else {
                words.append(upper..<(lower - 1))
                wordStart = lower - 1
            }
            searchStart = lower + 1
        }
        words.append(wordStart..<count)
        var result: [UInt8] = []
        result.reserveCapacity(count + words.count)
        for (position, word) in words.enumerated() {
            if position > 0 { result.append(UInt8(ascii: "_")) }
            result.append(contentsOf: key[word].map(lowered))
        }
        return result.elementsEqual(key) ? nil : result
    }
}
