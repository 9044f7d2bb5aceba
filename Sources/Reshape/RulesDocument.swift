// Typed rules to the rules document: the one place a `Rule` becomes JSON text for the engine.

import ReshapeCore

extension Rules {
    /// Compiles typed rules: writes their rules document and compiles it with the engine, so they
    /// mean exactly what that document means.
    ///
    /// ```swift
    /// let rules = try Rules([.keyedToArray(idKey: "objectId", wrapIn: "objects")])
    /// ```
    /// - Parameter rules: The rules, applied in order.
    /// - Throws: `ReshapeError` with code `invalid_rules` when a rule breaks the contract (a path
    ///   that cannot be compiled, `remove` of `$`, `valueKey` equal to `idKey`...), naming the
    ///   rule by its 1-based position in `rules` (counting each rule of a ``Rule/document(_:)``).
    public init(_ rules: [Rule]) throws(ReshapeError) {
        try self.init(json: try rules.rulesDocument())
    }
}

extension Array where Element == Rule {
    /// The rules document these rules stand for, as compact JSON text.
    ///
    /// Each rule is written `{"op": NAME, ...}` with only the params that differ from their
    /// defaults, in the order docs/rules.md lists them; a ``Rule/document(_:)`` contributes its
    /// rules as they are. Save it to share the same reshaping with the CLI, C or Python.
    /// - Returns: A JSON array of rules: `[{"op":"keyedToArray","idKey":"objectId"}]`.
    /// - Throws: `ReshapeError`: `invalid_rules` for a ``Rule/document(_:)`` that is not a valid
    ///   rules document, `invalid_argument` for a `default` value JSON cannot hold (a non-finite
    ///   double).
    public func rulesDocument() throws(ReshapeError) -> String {
        var writer = RulesDocumentWriter()
        for rule in self { try writer.write(rule) }
        return writer.finish()
    }
}

/// Writes rules documents. Strings and values go through the engine's own writer (`JSONValue.json`),
/// so escaping and numbers are exactly the engine's.
struct RulesDocumentWriter {
    /// A param value: any JSON value, or a renaming map written pair by pair (so that a repeated
    /// name reaches the engine as written instead of being merged).
    private enum Param {
        case value(JSONValue)
        case map(KeyRenaming)
    }

    private var text = "["
    /// The number of rules written so far.
    private(set) var count = 0

    mutating func write(_ rule: Rule) throws(ReshapeError) {
        switch rule {
        case .unwrap(let path, let optional):
            try object("unwrap", [("path", .value(.string(path))), optional ? ("optional", .value(true)) : nil])
        case .wrap(let key):
            try object("wrap", [("key", .value(.string(key)))])
        case .keyedToArray(let path, let idKey, let wrapIn, let onConflict, let nonObject, let valueKey):
            try object("keyedToArray", [
                string("path", path, default: "$"),
                string("idKey", idKey, default: "id"),
                wrapIn.map { ("wrapIn", .value(.string($0))) },
                string("onConflict", onConflict.rawValue, default: Rule.OnConflict.error.rawValue),
                string("nonObject", nonObject.rawValue, default: Rule.NonObject.error.rawValue),
                string("valueKey", valueKey, default: "value"),
            ])
        case .arrayToKeyed(let path, let idKey, let keepId):
            try object("arrayToKeyed", [
                string("path", path, default: "$"),
                string("idKey", idKey, default: "id"),
                keepId ? ("keepId", .value(true)) : nil,
            ])
        case .emptyObjectToNull(let path):
            try object("emptyObjectToNull", [string("path", path, default: "$..*")])
        case .blankStringToNull(let path, let trim):
            try object("blankStringToNull", [string("path", path, default: "$..*"), trim ? ("trim", .value(true)) : nil])
        case .convertKeys(let to, let path, let deep, let exclude):
            try object("convertKeys", [
                string("to", to.rawValue, default: Rule.KeyCase.camelCase.rawValue),
                string("path", path, default: "$"),
                deep ? nil : ("deep", .value(false)),
                exclude.isEmpty ? nil : ("exclude", .value(.array(exclude.map { .string($0) }))),
            ])
        case .renameKeys(let map, let path, let deep):
            try object("renameKeys", [
                ("map", .map(map)),
                string("path", path, default: "$"),
                deep ? ("deep", .value(true)) : nil,
            ])
        case .remove(let path, let matching):
            try object("remove", [("path", .value(.string(path))), matching.map { ("matching", .value(.string($0))) }])
        case .default(let path, let key, let value):
            try object("default", [string("path", path, default: "$"), ("key", .value(.string(key))), ("value", .value(value))])
        case .coerce(let path, let to, let onFail):
            try object("coerce", [
                ("path", .value(.string(path))),
                string("to", to.rawValue, default: Rule.CoerceTarget.number.rawValue),
                string("onFail", onFail.rawValue, default: Rule.OnFail.error.rawValue),
            ])
        case .emptyArrayToNull(let path):
            try object("emptyArrayToNull", [string("path", path, default: "$..*")])
        case .keep(let members, let path):
            try object("keep", [string("path", path, default: "$"), ("members", .value(.array(members.map { .string($0) })))])
        case .hoist(let path, let member, let onMissing):
            try object("hoist", [
                ("path", .value(.string(path))), ("member", .value(.string(member))),
                string("onMissing", onMissing.rawValue, default: Rule.HoistMissing.error.rawValue),
            ])
        case .pluck(let path, let member, let onMissing):
            try object("pluck", [
                ("path", .value(.string(path))), ("member", .value(.string(member))),
                string("onMissing", onMissing.rawValue, default: Rule.PluckMissing.error.rawValue),
            ])
        case .flatten(let path, let member, let prefix):
            try object("flatten", [("path", .value(.string(path))), ("member", .value(.string(member))), string("prefix", prefix, default: "")])
        case .mapValues(let path, let cases, let onOther):
            try object("mapValues", [
                ("path", .value(.string(path))),
                ("cases", .value(.array(cases.map { .array([$0.from, $0.to]) }))),
                string("onOther", onOther.rawValue, default: Rule.OtherValue.keep.rawValue),
            ])
        case .document(let json):
            try splice(json)
        }
    }

    /// The document: a JSON array of the rules written.
    func finish() -> String {
        text + "]"
    }

    private func string(_ name: String, _ value: String, default defaultValue: String) -> (String, Param)? {
        value == defaultValue ? nil : (name, .value(.string(value)))
    }

    private mutating func object(_ op: String, _ params: [(String, Param)?]) throws(ReshapeError) {
        var rule = "{\"op\":" + (try json(.string(op)))
        for case let (name, param)? in params {
            rule += "," + (try json(.string(name))) + ":"
            switch param {
            case .value(let value):
                rule += try json(value)
            case .map(let map):
                rule += "{"
                for (offset, pair) in map.pairs.enumerated() {
                    if offset > 0 { rule += "," }
                    rule += (try json(.string(pair.from))) + ":" + (try json(.string(pair.to)))
                }
                rule += "}"
            }
        }
        append(rule + "}")
    }

    /// Checks a rules document with the engine, then writes its rules in place.
    private mutating func splice(_ document: String) throws(ReshapeError) {
        do throws(ReshapeError) {
            _ = try Rules(json: document)
        } catch {
            var error = error
            if error.rule > 0 { error.rule += count }
            throw error
        }
        let value = try JSONValue(json: document)
        let list = value.arrayValue ?? value["rules"]?.arrayValue ?? []
        for rule in list { append(try json(rule)) }
    }

    private mutating func append(_ rule: String) {
        if count > 0 { text += "," }
        text += rule
        count += 1
    }

    private func json(_ value: JSONValue) throws(ReshapeError) -> String {
        String(decoding: try value.json(), as: UTF8.self)
    }
}
