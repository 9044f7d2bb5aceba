/// One walk over the samples that decides, place by place, what `reshape infer` proposes: keyed
/// collections (`keyedToArray`), dictionaries (kept, their names excluded from `convertKeys`),
/// placeholders (`{}`, `""`), numbers and booleans sent as strings, and the type of every place
/// in the reshaped output.
///
/// Values found at the same place in every sample and record are looked at together: the members
/// of a keyed collection become one record type, and so do the elements of an array. Each place
/// is known by two patterns: where it is in the input (`keyedToArray` runs first, on the input as
/// it is, innermost collections first) and where it is after every `keyedToArray` (the other
/// rules run there).
///
/// The walk recurses once per level of nesting, at most `maxDepth` levels: deeper values are typed
/// as any JSON value and get no rule, so the stack it uses does not depend on the input.
final class SampleAnalysis {
    static let maxDepth = 48

    /// A value at the place being looked at, with the states of each override path's automaton.
    struct Item {
        let value: JSONValue
        let states: [PathMatcher.States]
    }

    /// What a rule at one place is for.
    struct Finding {
        let op: String
        let pattern: PathPattern
        /// The rule's params besides `op` and `path`.
        let params: [(String, JSONValue)]
        let reason: String
    }

    let options: InferenceOptions
    private let matchers: [PathMatcher]
    /// `matchers[i]` is a `--map` path for `i < mapCount`, an `--object` path after.
    private let mapCount: Int

    private(set) var keyed: [Finding] = []
    private(set) var blanks: [Finding] = []
    private(set) var empties: [Finding] = []
    private(set) var emptyArrays: [Finding] = []
    private(set) var coercions: [Finding] = []
    /// Dictionaries after every `keyedToArray`: their member names are data, not converted.
    private(set) var dictionaries: [PathPattern] = []
    /// Member names of records and objects, in order of first appearance (for `convertKeys`).
    private(set) var fieldNames: [String] = []
    private var knownFieldNames: Set<String> = []
    /// Override paths that selected a place.
    private(set) var usedOverrides: Set<Int> = []
    /// Above 0 inside a dictionary, where `convertKeys` leaves names as they are.
    private var keepingNames = 0

    init(options: InferenceOptions) throws(ReshapeError) {
        self.options = options
        var matchers: [PathMatcher] = []
        for (flag, paths) in [("--map", options.maps), ("--object", options.objects)] {
            for text in paths {
                let path: JSONPath
                switch JSONPathParser.parse(text) {
                case .success(let parsed): path = parsed
                case .failure(let failure):
                    throw ReshapeError(.invalidArgument, "\(flag) \(quoted(text)): \(failure.message) at character \(failure.character)")
                }
                guard let matcher = PathMatcher(path) else {
                    throw ReshapeError(
                        .invalidArgument, "\(flag) \(quoted(text)): only names, indices and wildcards can name a place in the samples")
                }
                matchers.append(matcher)
            }
        }
        self.matchers = matchers
        mapCount = options.maps.count
    }

    /// The items of the samples' roots.
    func roots(_ samples: [JSONValue]) -> [Item] {
        samples.map { Item(value: $0, states: matchers.map(\.root)) }
    }

    /// Looks at the values `items`, found at `input` in the input and at `output` after every
    /// `keyedToArray`, and at everything below them; returns their type in the output.
    /// `areRecords`: the values are the records of a keyed collection, which `keyedToArray` gives an
    /// id: none of them is `{}` in the output.
    func analyze(_ items: [Item], input: PathPattern, output: PathPattern, depth: Int, areRecords: Bool = false) -> InferredType {
        var nulls = 0, bools = 0, integers = 0, reals = 0, blankCount = 0
        var strings: [String] = []
        var objects: [(JSONObject, [PathMatcher.States])] = []
        var arrays: [(JSONArray, [PathMatcher.States])] = []
        for item in items {
            switch item.value {
            case .null: nulls += 1
            case .bool: bools += 1
            case .integer: integers += 1
            case .double, .number: reals += 1
            case .string(let text): if text.isEmpty { blankCount += 1 } else { strings.append(text) }
            case .object(let object): objects.append((object, item.states))
            case .array(let array): arrays.append((array, item.states))
            }
        }
        guard depth < Self.maxDepth else { return InferredType(.any, nullable: nulls > 0) }
        let scalars = bools + integers + reals + blankCount + strings.count
        let forcedMap = selected(items, in: 0..<mapCount)
        let forcedObject = selected(items, in: mapCount..<matchers.count)

        if scalars == 0, !forcedObject, let collection = keyedCollection(objects, arrays, forced: forcedMap, at: input) {
            return records(collection, objects: objects, arrays: arrays, input: input, output: output, depth: depth)
        }
        // Not for records: a record has its id beside its fields.
        if scalars == 0, arrays.isEmpty, !forcedObject, !areRecords, !objects.isEmpty, objects.contains(where: { !$0.0.isEmpty }) {
            let score = CollectionScore(objects.map(\.0))
            if forcedMap || score.score >= CollectionScore.threshold {
                var values: [Item] = []
                for (object, states) in objects {
                    for member in object.members { values.append(Item(value: member.value, states: child(states, name: member.key))) }
                }
                // One inside another is excluded with it already.
                if keepingNames == 0 { dictionaries.append(output) }
                // `convertKeys` excludes the dictionary and everything below it: names there stay.
                keepingNames += 1
                let value = analyze(values, input: input.appending(.anyMember), output: output.appending(.anyMember), depth: depth + 1)
                keepingNames -= 1
                return InferredType(.dictionary(value), nullable: nulls > 0)
            }
        }

        var kinds: [InferredType] = []
        var nullable = nulls > 0
        // Objects: one record type over all of them; `{}` beside objects with members is null.
        // The response itself is never made null, nor is a record (it has its id): there, `{}` is
        // an object whose members are all missing, and `[]` an array.
        let isRoot = output.steps.isEmpty || areRecords
        let filled = objects.filter { !$0.0.isEmpty }
        let emptyCount = objects.count - filled.count
        if !filled.isEmpty {
            let fields = fields(filled, of: isRoot ? objects.count : filled.count, input: input, output: output, depth: depth)
            kinds.append(InferredType(.object(fields), nullable: false))
            if emptyCount > 0 && !isRoot {
                nullable = true
                empties.append(Finding(
                    op: "emptyObjectToNull", pattern: output, params: [],
                    reason: "\(output.text) is {} in \(emptyCount) of \(items.count) values and an object with members in \(filled.count)"))
            }
        } else if emptyCount > 0 {
            kinds.append(InferredType(.emptyObject, nullable: false))
        }
        // Arrays: one element type over all their elements. `[]` where only objects are found
        // otherwise is PHP's empty object: null.
        let filledArrays = arrays.filter { !$0.0.isEmpty }
        if !filled.isEmpty, filledArrays.isEmpty, !arrays.isEmpty, !isRoot {
            nullable = true
            emptyArrays.append(Finding(
                op: "emptyArrayToNull", pattern: output, params: [],
                reason: "\(output.text) is [] in \(arrays.count) of \(items.count) values and an object with members in \(filled.count) (PHP's empty object)"))
        } else if !arrays.isEmpty {
            kinds.append(elements(arrays, input: input, output: output, depth: depth))
        }
        // Strings: blanks, and numbers or booleans sent as strings.
        let coercion = strings.isEmpty || isRoot ? nil : coercionTarget(strings, bools: bools, numbers: integers + reals, others: objects.count + arrays.count, name: input.lastName ?? "")
        var blankBecomesNull = false
        // A number or boolean sent as a string is sent as "" when absent, seen or not: "" first
        // becomes null there, and the type is optional.
        if (blankCount > 0 || coercion != nil) && !isRoot {
            let others = nulls + bools + integers + reals + objects.count + arrays.count
            let enumLike = !strings.isEmpty && Self.isEnumLike(strings)
            if coercion != nil || others > 0 || enumLike {
                blankBecomesNull = true
                nullable = true
                let why: String
                if let coercion {
                    why = "the others are \(coercion.0 == "boolean" ? "booleans" : "numbers") sent as strings"
                } else if enumLike {
                    let distinct = Set(strings).count
                    why = "the others are \(distinct == 1 ? "one short name" : "\(distinct) distinct short names") without spaces (an enum-like set)"
                } else {
                    why = "the others are \(Self.describe(nulls: nulls, bools: bools, numbers: integers + reals, objects: objects.count, arrays: arrays.count))"
                }
                let seen = blankCount > 0 ? "is \"\" in \(blankCount) of \(items.count) values" : "may be \"\" when absent"
                blanks.append(Finding(op: "blankStringToNull", pattern: output, params: [], reason: "\(output.text) \(seen); \(why)"))
            }
        }
        if let (target, integral) = coercion {
            coercions.append(Finding(
                op: "coerce", pattern: output, params: [("to", .string(target))],
                reason: "\(output.text) holds \(target == "boolean" ? "booleans" : integral ? "integers" : "numbers") sent as strings: every one of its \(strings.count) strings that are not \"\""))
            if target == "boolean" {
                if bools == 0 { kinds.append(InferredType(.bool, nullable: false)) }
            } else {
                reals += integral ? 0 : strings.count
                integers += integral ? strings.count : 0
            }
        } else if !strings.isEmpty || (blankCount > 0 && !blankBecomesNull) {
            kinds.append(InferredType(.string, nullable: false))
        }
        if bools > 0 { kinds.append(InferredType(.bool, nullable: false)) }
        if integers + reals > 0 { kinds.append(InferredType(reals > 0 ? .real : .integer, nullable: false)) }

        switch kinds.count {
        case 0: return InferredType(.unknown, nullable: true)
        case 1: return InferredType(kinds[0].kind, nullable: nullable)
        default: return InferredType(.any, nullable: nullable)
        }
    }

    // MARK: - Keyed collections

    private struct Collection {
        let score: CollectionScore?
        let forced: Bool
        let holes: Int
        let nullMembers: Int
    }

    /// Whether the objects and arrays at a place are keyed collections: every member of the
    /// objects (and every element of the arrays) is an object or `null`, and the score says so,
    /// or `--map` does, or, with no object, the arrays are Firebase's array form (`null` holes
    /// between objects).
    private func keyedCollection(
        _ objects: [(JSONObject, [PathMatcher.States])], _ arrays: [(JSONArray, [PathMatcher.States])], forced: Bool, at input: PathPattern
    ) -> Collection? {
        guard !objects.isEmpty || !arrays.isEmpty else { return nil }
        var memberObjects = 0, nullMembers = 0, holes = 0, elementObjects = 0
        for (object, _) in objects {
            for member in object.members {
                switch member.value {
                case .object: memberObjects += 1
                case .null: nullMembers += 1
                default: return nil
                }
            }
        }
        for (array, _) in arrays {
            for element in array {
                switch element {
                case .object: elementObjects += 1
                case .null: holes += 1
                default: return nil
                }
            }
        }
        if forced { return Collection(score: nil, forced: true, holes: holes, nullMembers: nullMembers) }
        if memberObjects > 0 {
            let score = CollectionScore(objects.map(\.0))
            guard score.score >= CollectionScore.threshold else { return nil }
            return Collection(score: score, forced: false, holes: holes, nullMembers: nullMembers)
        }
        // Firebase sends a collection whose keys are small integers as an array, `null` where a
        // key is missing: from 1 (the usual first key), the array starts with a hole.
        let startsWithHole = arrays.contains { $0.0.first?.isNull ?? false }
        if objects.allSatisfy({ $0.0.isEmpty }), holes > 0, elementObjects > 0, startsWithHole {
            return Collection(score: nil, forced: false, holes: holes, nullMembers: nullMembers)
        }
        return nil
    }

    private func records(
        _ collection: Collection, objects: [(JSONObject, [PathMatcher.States])], arrays: [(JSONArray, [PathMatcher.States])],
        input: PathPattern, output: PathPattern, depth: Int
    ) -> InferredType {
        var items: [Item] = []
        var memberCount = 0
        for (object, states) in objects {
            for member in object.members where !member.value.isNull {
                items.append(Item(value: member.value, states: child(states, name: member.key)))
            }
            memberCount += object.count
        }
        var elementCount = 0
        for (array, states) in arrays {
            for (index, element) in array.enumerated() where !element.isNull {
                items.append(Item(value: element, states: matchers.indices.map { matchers[$0].child(states[$0], index: index) }))
            }
            elementCount += array.count
        }
        var idKey = options.idKey
        let taken = Set(items.flatMap { $0.value.objectValue?.keys ?? [] })
        for candidate in [options.idKey, "_" + options.idKey, "key", "_key"] where !taken.contains(candidate) {
            idKey = candidate
            break
        }
        let isRoot = input.steps.isEmpty
        let wrapName = options.name
        let recordsAt = isRoot ? PathPattern.root.appending(.name(wrapName)) : output
        let inputStep: PathPattern.Step = objects.isEmpty ? .anyElement : .anyMember
        let record = analyze(items, input: input.appending(inputStep), output: recordsAt.appending(.anyElement), depth: depth + 1, areRecords: true)
        var fields: [InferredField] = [InferredField(name: convertedName(idKey), type: InferredType(.string, nullable: false), required: true)]
        note(fieldName: idKey)
        if case .object(let members) = record.kind { fields += members }
        let recordType = InferredType(.object(fields), nullable: false)

        var params: [(String, JSONValue)] = []
        if !input.steps.isEmpty { params.append(("path", .string(input.text))) }
        params.append(("idKey", .string(idKey)))
        if isRoot { params.append(("wrapIn", .string(wrapName))) }
        if collection.nullMembers > 0 { params.append(("nonObject", "skip")) }
        var why: [String] = []
        if let score = collection.score {
            let names = score.idKind.map { "names are \($0.rawValue)" } ?? "names vary"
            let shape = score.shape >= 0.99 ? "all objects of one shape" : "objects of similar shapes"
            why.append("\(memberCount) member\(memberCount == 1 ? "" : "s") over \(objects.count) object\(objects.count == 1 ? "" : "s"), \(shape), \(names) (score \(Self.format(score.score)))")
        } else if collection.forced {
            why.append("--map says so")
        }
        if collection.holes > 0 {
            why.append("an array with \(collection.holes) null hole\(collection.holes == 1 ? "" : "s") among \(elementCount) elements (Firebase's array form of a keyed collection)")
        }
        if collection.nullMembers > 0 { why.append("\(collection.nullMembers) null member\(collection.nullMembers == 1 ? "" : "s") dropped") }
        if idKey != options.idKey { why.append("records already have \(quoted(options.idKey)), so the key goes to \(quoted(idKey))") }
        keyed.append(Finding(op: "keyedToArray", pattern: input, params: params, reason: "\(input.text) is a keyed collection: " + why.joined(separator: "; ")))
        let array = InferredType(.array(recordType, lossy: false), nullable: false)
        guard isRoot else { return array }
        return InferredType(.object([InferredField(name: convertedName(wrapName), type: array, required: true)]), nullable: false)
    }

    // MARK: - Objects and arrays

    /// The fields of `objects`, one of `total` objects found at the place (a member missing from
    /// some of them is optional).
    private func fields(
        _ objects: [(JSONObject, [PathMatcher.States])], of total: Int, input: PathPattern, output: PathPattern, depth: Int
    ) -> [InferredField] {
        var order: [String] = []
        var values: [String: [Item]] = [:]
        for (object, states) in objects {
            for member in object.members {
                if values[member.key] == nil { order.append(member.key) }
                values[member.key, default: []].append(Item(value: member.value, states: child(states, name: member.key)))
            }
        }
        return order.map { name in
            note(fieldName: name)
            let items = values[name] ?? []
            let type = analyze(items, input: input.appending(.name(name)), output: output.appending(.name(name)), depth: depth + 1)
            return InferredField(name: convertedName(name), type: type, required: items.count == total)
        }
    }

    private func elements(_ arrays: [(JSONArray, [PathMatcher.States])], input: PathPattern, output: PathPattern, depth: Int) -> InferredType {
        var items: [Item] = []
        var kinds: [ValueKind: Int] = [:]
        for (array, states) in arrays {
            for (index, element) in array.enumerated() {
                items.append(Item(value: element, states: matchers.indices.map { matchers[$0].child(states[$0], index: index) }))
                if !element.isNull { kinds[ValueKind(element), default: 0] += 1 }
            }
        }
        guard kinds.count > 1 else {
            let element = analyze(items, input: input.appending(.anyElement), output: output.appending(.anyElement), depth: depth + 1)
            return InferredType(.array(element, lossy: false), nullable: false)
        }
        // Elements that disagree: the type of the most common kind; the others are dropped.
        let majority = kinds.max { $0.value < $1.value || ($0.value == $1.value && "\($0.key)" > "\($1.key)") }?.key ?? .null
        let kept = items.filter { ValueKind($0.value) == majority }
        let element = analyze(kept, input: input.appending(.anyElement), output: output.appending(.anyElement), depth: depth + 1)
        return InferredType(.array(element, lossy: true), nullable: false)
    }

    // MARK: - Strings

    /// Words that end the name of a member whose digits are a code, not a quantity.
    private static let codeWords: Set<String> = ["id", "ids", "uid", "code", "zip", "zipcode", "postal", "postcode", "phone", "sku", "isbn", "ean", "upc", "pin", "iban", "account", "version"]

    /// `("number" | "integer" | "boolean", integral)` when every string is a number (exactly as
    /// JSON writes one, without leading zeros, at most 15 digits) or every one is `true`/`false`,
    /// and the place holds nothing but such strings, `null`, `""` and values of that type.
    private func coercionTarget(_ strings: [String], bools: Int, numbers: Int, others: Int, name: String) -> (String, Bool)? {
        guard others == 0 else { return nil }
        if bools == 0 || numbers == 0, strings.allSatisfy({ $0 == "true" || $0 == "false" }) {
            return numbers == 0 ? ("boolean", false) : nil
        }
        guard bools == 0 else { return nil }
        if Self.codeWords.contains(name.lowercased()) || name.hasSuffix("ID") { return nil }
        if let last = Self.camelWords(name).last, Self.codeWords.contains(last) { return nil }
        var integral = true
        for text in strings {
            guard let isInteger = Self.plainNumber(text) else { return nil }
            integral = integral && isInteger
        }
        return (integral ? "integer" : "number", integral)
    }

    private static func camelWords(_ name: String) -> [String] {
        var words: [String] = []
        var word = ""
        for character in name {
            if character.isUppercase || !character.isLetter {
                if !word.isEmpty { words.append(word.lowercased()) }
                word = character.isLetter ? String(character) : ""
            } else {
                word.append(character)
            }
        }
        if !word.isEmpty { words.append(word.lowercased()) }
        return words
    }

    /// Whether `text` is a JSON number without leading zeros and with at most 15 digits before
    /// any fraction: true for an integer, false for a real; nil when it is not one.
    static func plainNumber(_ text: String) -> Bool? {
        let bytes = Array(text.utf8)
        var index = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let digitsStart = index
        while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
        let digits = index - digitsStart
        guard digits > 0, digits <= 15, !(digits > 1 && bytes[digitsStart] == 0x30) else { return nil }
        var integer = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            guard index > start else { return nil }
            integer = false
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            guard index > start else { return nil }
            integer = false
        }
        return index == bytes.count ? integer : nil
    }

    /// At most 10 distinct strings, each at most 32 bytes with no white space: names of cases.
    static func isEnumLike(_ strings: [String]) -> Bool {
        let distinct = Set(strings)
        return distinct.count <= 10 && distinct.allSatisfy { text in
            text.utf8.count <= 32 && !text.unicodeScalars.contains { $0.properties.isWhitespace }
        }
    }

    private static func describe(nulls: Int, bools: Int, numbers: Int, objects: Int, arrays: Int) -> String {
        var parts: [String] = []
        if nulls > 0 { parts.append("null") }
        if bools > 0 { parts.append("booleans") }
        if numbers > 0 { parts.append("numbers") }
        if objects > 0 { parts.append("objects") }
        if arrays > 0 { parts.append("arrays") }
        guard let last = parts.last, parts.count > 1 else { return parts.joined() }
        return parts.dropLast().joined(separator: ", ") + " or " + last
    }

    static func format(_ score: Double) -> String {
        let hundredths = Int((score * 100).rounded())
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    }

    // MARK: - Names and overrides

    /// The name a member has in the output.
    func convertedName(_ name: String) -> String {
        guard keepingNames == 0, let conversion = options.keys.conversion else { return name }
        let bytes = Array(name.utf8)
        let converted = bytes.withUnsafeBytes { conversion($0) }
        return converted.map { String(decoding: $0, as: UTF8.self) } ?? name
    }

    private func note(fieldName name: String) {
        guard keepingNames == 0 else { return }
        if knownFieldNames.insert(name).inserted { fieldNames.append(name) }
    }

    private func child(_ states: [PathMatcher.States], name: String) -> [PathMatcher.States] {
        guard !matchers.isEmpty else { return states }
        let bytes = Array(name.utf8)
        return bytes.withUnsafeBytes { raw in
            let hash = RecordNames.hash(raw)
            return matchers.indices.map { matchers[$0].child(states[$0], name: raw, hash: hash) }
        }
    }

    /// Whether an override path in `range` selects one of `items`.
    private func selected(_ items: [Item], in range: Range<Int>) -> Bool {
        var found = false
        for index in range where items.contains(where: { $0.states[index] & matchers[index].selected != 0 }) {
            usedOverrides.insert(index)
            found = true
        }
        return found
    }
}
