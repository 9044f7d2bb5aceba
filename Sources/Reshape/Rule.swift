import ReshapeCore

/// One rule of a rules document, written in Swift: a typed case per op of docs/rules.md.
///
/// Every param has the same name and the same default as in the rules document, and a list of
/// typed rules means exactly what the rules document ``document(_:)`` writes for it means: it is
/// compiled by the engine from that document (see ``ReshapeCore/Rules/init(_:)``), so the engine
/// stays the only implementation of every op.
///
/// ```swift
/// let rules = try Rules([
///     .unwrap("$.data"),
///     .keyedToArray(idKey: "objectId", wrapIn: "objects"),
///     .emptyObjectToNull,
/// ])
/// ```
///
/// Ops whose params all have defaults can be written without parentheses (`.keyedToArray`,
/// `.emptyObjectToNull`, `.emptyArrayToNull`, `.blankStringToNull`, `.convertKeys`, `.arrayToKeyed`).
public enum Rule: Sendable, Hashable {
    /// The document becomes the value at `path`; a missing singular path is an error, or `null`
    /// when `optional`.
    /// - Parameters:
    ///   - path: What the document becomes (required).
    ///   - optional: A missing singular path gives `null` instead of an error.
    case unwrap(_ path: String, optional: Bool = false)
    /// The document becomes `{key: document}`.
    /// - Parameter key: The member name to wrap the document in (required).
    case wrap(key: String)
    /// Each selected object `{k: {...}}` becomes `[{idKey: k, ...}]`, optionally under `wrapIn`.
    /// - Parameters:
    ///   - path: The collections to convert.
    ///   - idKey: The member that receives each key.
    ///   - wrapIn: Put the array under this member name; nil for none.
    ///   - onConflict: What to do with a record that already has `idKey`.
    ///   - nonObject: What to do with a member that is not an object.
    ///   - valueKey: The member that receives a non-object value with `nonObject: .wrap`.
    case keyedToArray(
        path: String = "$", idKey: String = "id", wrapIn: String? = nil, onConflict: OnConflict = .error,
        nonObject: NonObject = .error, valueKey: String = "value")
    /// Each selected array `[{idKey: k, ...}]` becomes `{k: {...}}`: the inverse, for writing back.
    /// - Parameters:
    ///   - path: The arrays to convert.
    ///   - idKey: The member holding each record's key.
    ///   - keepId: Keep `idKey` inside the records.
    case arrayToKeyed(path: String = "$", idKey: String = "id", keepId: Bool = false)
    /// Each selected `{}` becomes `null`.
    /// - Parameter path: The values to look at; every value below the document by default.
    case emptyObjectToNull(path: String = "$..*")
    /// Each selected `""` (with `trim`, also a string of only white space) becomes `null`.
    /// - Parameters:
    ///   - path: The values to look at; every value below the document by default.
    ///   - trim: Also strings of only white space (Unicode White_Space).
    case blankStringToNull(path: String = "$..*", trim: Bool = false)
    /// Renames members exactly as Foundation's snake_case key strategies do, reading `-` as `_`.
    /// - Parameters:
    ///   - to: The naming convention.
    ///   - path: The objects whose members to rename.
    ///   - deep: Also rename inside their values, at any depth.
    ///   - exclude: Paths whose objects, and everything below them, keep their names.
    case convertKeys(to: KeyCase = .camelCase, path: String = "$", deep: Bool = true, exclude: [String] = [])
    /// Renames the listed members in place: `.renameKeys(["book_list": "books"])`.
    /// - Parameters:
    ///   - map: Old name → new name (required).
    ///   - path: The objects whose members to rename.
    ///   - deep: Also rename inside their values, at any depth.
    case renameKeys(_ map: KeyRenaming, path: String = "$", deep: Bool = false)
    /// Removes the selected members or elements; with `matching`, the members of the selected
    /// objects whose whole names match that I-Regexp (RFC 9485).
    /// - Parameters:
    ///   - path: The members or elements to remove (required; `$` is rejected), or with
    ///     `matching`, the objects to remove members from.
    ///   - matching: An I-Regexp the whole member name must match: `".*_url"`.
    case remove(_ path: String, matching: String? = nil)
    /// Sets `key` to `value` on each selected object where it is missing or `null`.
    /// - Parameters:
    ///   - path: The objects to complete.
    ///   - key: The member name (required).
    ///   - value: Any JSON value (required).
    case `default`(path: String = "$", key: String, value: JSONValue)
    /// Converts the selected values to `to`; a value that cannot be converted is handled by `onFail`.
    /// - Parameters:
    ///   - path: The values to convert (required).
    ///   - to: The type.
    ///   - onFail: What to do with a value that cannot be converted.
    case coerce(_ path: String, to: CoerceTarget = .number, onFail: OnFail = .error)
    /// Each selected `[]` becomes `null` (PHP APIs send `[]` for an empty object or a missing list).
    /// - Parameter path: The values to look at; every value below the document by default.
    case emptyArrayToNull(path: String = "$..*")
    /// Each selected object keeps only the members named in `members`, in their order in the
    /// object; a selected `null` stays, any other value that is not an object is an error.
    /// - Parameters:
    ///   - members: The names of the members to keep (required).
    ///   - path: The objects to trim.
    case keep(_ members: [String], path: String = "$")
    /// Each selected object becomes the value of its member `member`; a selected `null` stays.
    /// - Parameters:
    ///   - path: The objects to replace (required).
    ///   - member: The member whose value replaces each object (required).
    ///   - onMissing: What an object without the member becomes.
    case hoist(_ path: String, member: String, onMissing: HoistMissing = .error)
    /// Each selected array of objects becomes the array of their `member` values, in order.
    /// - Parameters:
    ///   - path: The arrays to replace (required).
    ///   - member: The member taken from each element (required).
    ///   - onMissing: What an element without the member (or `null`) gives.
    case pluck(_ path: String, member: String, onMissing: PluckMissing = .error)
    /// In each selected object, the object member `member` is replaced in place by its members,
    /// each name prefixed with `prefix`; a `null` member is removed, a missing one changes nothing.
    /// - Parameters:
    ///   - path: The objects to flatten (required).
    ///   - member: The member whose members move up (required).
    ///   - prefix: Put before each moved member's name.
    case flatten(_ path: String, member: String, prefix: String = "")
    /// Each selected value equal to a case's `from` becomes its `to` (JSON equality: numbers by
    /// exact value, objects whatever their member order); the first matching case wins.
    /// - Parameters:
    ///   - path: The values to map (required).
    ///   - cases: The cases, in order: `[.init(0, "draft"), .init(1, "published")]` (required).
    ///   - onOther: What a value no case matches becomes.
    case mapValues(_ path: String, cases: [ValueCase], onOther: OtherValue = .keep)
    /// The rules of a rules document (JSON text), in place: for rules kept as JSON next to a type.
    /// - Parameter json: A rules document: a JSON array of rules, or `{"rules": [...]}`.
    ///
    /// The text is checked by the engine as a whole rules document; its rules then take their
    /// place in the list, so a failing rule is numbered by its position in the whole list.
    case document(_ json: String)

    /// What `keyedToArray` does with a record that already has the `idKey` member.
    public enum OnConflict: String, Sendable, Hashable, CaseIterable {
        /// Fail with `rule_failed`.
        case error
        /// The collection's key wins.
        case overwrite
        /// The record's own field wins.
        case keep
    }

    /// What `keyedToArray` does with a member that is not an object.
    public enum NonObject: String, Sendable, Hashable, CaseIterable {
        /// Fail with `rule_failed`.
        case error
        /// Drop the member.
        case skip
        /// Make it `{idKey: k, valueKey: v}`.
        case wrap
    }

    /// The naming convention `convertKeys` renames members to.
    public enum KeyCase: String, Sendable, Hashable, CaseIterable {
        /// `book_list` → `bookList`, as `JSONDecoder.KeyDecodingStrategy.convertFromSnakeCase`.
        case camelCase
        /// `bookList` → `book_list`, as `JSONEncoder.KeyEncodingStrategy.convertToSnakeCase`.
        case snakeCase = "snake_case"
        /// `bookList` → `book-list`: snake_case written with `-`.
        case kebabCase = "kebab-case"
    }

    /// The type `coerce` converts values to.
    public enum CoerceTarget: String, Sendable, Hashable, CaseIterable {
        /// A string holding exactly a JSON number becomes that number.
        case number
        /// A whole number (or string holding one) becomes an integer.
        case integer
        /// Numbers and booleans become their text.
        case string
        /// Exactly `"true"` and `"false"` become booleans.
        case boolean
    }

    /// What `coerce` does with a value it cannot convert.
    public enum OnFail: String, Sendable, Hashable, CaseIterable {
        /// Fail with `rule_failed`.
        case error
        /// Replace it with `null`.
        case null
        /// Leave it as it is.
        case keep
    }

    /// What `hoist` makes of an object without the member.
    public enum HoistMissing: String, Sendable, Hashable, CaseIterable {
        /// Fail with `rule_failed`.
        case error
        /// The object becomes `null`.
        case null
        /// The object stays as it is.
        case keep
    }

    /// What `pluck` makes of an element without the member, or `null`.
    public enum PluckMissing: String, Sendable, Hashable, CaseIterable {
        /// Fail with `rule_failed`.
        case error
        /// Leave the element out.
        case skip
        /// Put `null` in its place.
        case null
    }

    /// One case of `mapValues`: a value, and what it becomes.
    public struct ValueCase: Sendable, Hashable {
        /// The value to match.
        public var from: JSONValue
        /// What a matching value becomes.
        public var to: JSONValue

        /// A case: `from` becomes `to`.
        public init(_ from: JSONValue, _ to: JSONValue) {
            self.from = from
            self.to = to
        }
    }

    /// What `mapValues` makes of a value no case matches.
    public enum OtherValue: String, Sendable, Hashable, CaseIterable {
        /// It stays as it is.
        case keep
        /// It becomes `null`.
        case null
        /// Fail with `rule_failed`.
        case error
    }

    /// `keyedToArray` with every param at its default: the collection at `$`, ids in `"id"`.
    public static var keyedToArray: Rule { .keyedToArray() }
    /// `arrayToKeyed` with every param at its default.
    public static var arrayToKeyed: Rule { .arrayToKeyed() }
    /// `emptyObjectToNull` with every param at its default: every `{}` below the document.
    public static var emptyObjectToNull: Rule { .emptyObjectToNull() }
    /// `emptyArrayToNull` with every param at its default: every `[]` below the document.
    public static var emptyArrayToNull: Rule { .emptyArrayToNull() }
    /// `blankStringToNull` with every param at its default: every `""` below the document.
    public static var blankStringToNull: Rule { .blankStringToNull() }
    /// `convertKeys` with every param at its default: every member name to camelCase.
    public static var convertKeys: Rule { .convertKeys() }

    /// The op name this rule has in a rules document (`"keyedToArray"`), or `nil` for
    /// ``document(_:)``, which stands for a whole list of rules.
    public var op: String? {
        switch self {
        case .unwrap: "unwrap"
        case .wrap: "wrap"
        case .keyedToArray: "keyedToArray"
        case .arrayToKeyed: "arrayToKeyed"
        case .emptyObjectToNull: "emptyObjectToNull"
        case .blankStringToNull: "blankStringToNull"
        case .convertKeys: "convertKeys"
        case .renameKeys: "renameKeys"
        case .remove: "remove"
        case .default: "default"
        case .coerce: "coerce"
        case .emptyArrayToNull: "emptyArrayToNull"
        case .keep: "keep"
        case .hoist: "hoist"
        case .pluck: "pluck"
        case .flatten: "flatten"
        case .mapValues: "mapValues"
        case .document: nil
        }
    }
}
