/// The `map` param of ``Rule/renameKeys(_:path:deep:)``: old member name → new name, in order.
///
/// Written as a dictionary literal (`["book_list": "books"]`). Unlike a `Dictionary` it keeps the
/// order written and never traps on a repeated name: the pairs go into the rules document as
/// written, and the engine reports a repeated name as it would in a JSON rules document.
public struct KeyRenaming: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// One renaming: the old member name and the new one.
    public struct Pair: Sendable, Hashable {
        /// The member name in the input.
        public var from: String
        /// The name it gets.
        public var to: String

        /// Creates a renaming.
        /// - Parameters:
        ///   - from: The member name in the input.
        ///   - to: The name it gets.
        public init(from: String, to: String) {
            self.from = from
            self.to = to
        }
    }

    /// The renamings, in the order written.
    public var pairs: [Pair]

    /// Creates a map from renamings in order.
    /// - Parameter pairs: The renamings.
    public init(_ pairs: [Pair]) {
        self.pairs = pairs
    }

    /// Creates a map from a dictionary literal, keeping the order written.
    /// - Parameter elements: Old name, new name pairs.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.pairs = elements.map { Pair(from: $0.0, to: $0.1) }
    }
}
