/// The members of a JSON object, in order, with unique names.
///
/// Names are told apart by their exact Unicode scalars, as JSON does: `"é"` (U+00E9) and `"é"`
/// (U+0065 U+0301) are two members, although Swift's `String ==` calls them equal. Lookups and
/// appends take constant time (an index by name sits beside the ordered members), so objects with
/// many members, such as a Firebase collection, stay fast. Deeply nested values are released without
/// recursion (see `ValueStorage`).
public struct JSONObject: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// One member: a name and its value.
    public struct Member: Sendable, Hashable {
        /// The member's name.
        public var key: String
        /// The member's value.
        public var value: JSONValue

        /// Creates a member.
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }

        /// Equal names (scalar by scalar, not by canonical equivalence) and equal values.
        public static func == (lhs: Member, rhs: Member) -> Bool {
            lhs.key.utf8.elementsEqual(rhs.key.utf8) && lhs.value == rhs.value
        }

        /// Hashes the name's exact scalars and the value.
        public func hash(into hasher: inout Hasher) {
            ExactName(key).hash(into: &hasher)
            hasher.combine(value)
        }
    }

    /// The members in order.
    public var members: [Member] { storage.elements }
    private var storage: ValueStorage<Member>
    /// The position of each member by exact name.
    private var positions: [ExactName: Int]

    /// An empty object.
    public init() {
        storage = ValueStorage([], values: \.value)
        positions = [:]
    }

    /// An object with the members in the order written; a repeated name keeps its first position
    /// and its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init()
        for (key, value) in elements { self[key] = value }
    }

    /// The value of member `key` (matched scalar by scalar). Setting a new name appends it;
    /// setting an existing one replaces its value in place; setting nil removes it.
    public subscript(key: String) -> JSONValue? {
        get { positions[ExactName(key)].map { storage.elements[$0].value } }
        set {
            let name = ExactName(key)
            if !isKnownUniquelyReferenced(&storage) { storage = ValueStorage(storage.elements, values: \.value) }
            if let position = positions[name] {
                if let newValue {
                    storage.elements[position].value = newValue
                } else {
                    storage.elements.remove(at: position)
                    positions[name] = nil
                    for later in position..<storage.elements.count { positions[ExactName(storage.elements[later].key)] = later }
                }
            } else if let newValue {
                positions[name] = storage.elements.count
                storage.elements.append(Member(key: key, value: newValue))
            }
        }
    }

    /// The member names in order.
    public var keys: [String] { members.map(\.key) }

    /// The position of the first member.
    public var startIndex: Int { 0 }
    /// The position after the last member.
    public var endIndex: Int { storage.elements.count }
    /// The member at `position`.
    public subscript(position: Int) -> Member { storage.elements[position] }

    /// Two objects are equal when they have the same members in the same order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        JSONValue.object(lhs) == JSONValue.object(rhs)
    }

    /// Hashes the members in order.
    public func hash(into hasher: inout Hasher) {
        JSONValue.object(self).hash(into: &hasher)
    }
}

/// A member name compared and hashed by its UTF-8 bytes, so that canonically equivalent but
/// different names stay different.
struct ExactName: Hashable {
    let text: String

    init(_ text: String) {
        self.text = text
    }

    static func == (lhs: ExactName, rhs: ExactName) -> Bool {
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    func hash(into hasher: inout Hasher) {
        var copy = text
        copy.withUTF8 { bytes in
            hasher.combine(bytes.count)
            hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        }
    }
}
