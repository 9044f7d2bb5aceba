/// The members of a JSON object, in order, with unique names.
///
/// Lookups and appends take constant time (an index by name sits beside the ordered members), so
/// objects with many members, such as a Firebase collection, stay fast.
public struct JSONObject: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// One member: a name and its value.
    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: JSONValue

        /// Creates a member.
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The members in order.
    public private(set) var members: [Member]
    /// The position of each member by name.
    private var positions: [String: Int]

    /// An empty object.
    public init() {
        members = []
        positions = [:]
    }

    /// An object with the members in the order written; a repeated name keeps its first position
    /// and its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init()
        for (key, value) in elements { self[key] = value }
    }

    /// The value of member `key`. Setting a new name appends it; setting an existing one replaces
    /// its value in place; setting nil removes it.
    public subscript(key: String) -> JSONValue? {
        get { positions[key].map { members[$0].value } }
        set {
            if let position = positions[key] {
                if let newValue {
                    members[position].value = newValue
                } else {
                    members.remove(at: position)
                    positions[key] = nil
                    for later in position..<members.count { positions[members[later].key] = later }
                }
            } else if let newValue {
                positions[key] = members.count
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    /// The member names in order.
    public var keys: [String] { members.map(\.key) }

    /// The position of the first member.
    public var startIndex: Int { members.startIndex }
    /// The position after the last member.
    public var endIndex: Int { members.endIndex }
    /// The member at `position`.
    public subscript(position: Int) -> Member { members[position] }

    /// Two objects are equal when they have the same members in the same order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members == rhs.members
    }

    /// Hashes the members in order.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(members)
    }
}
