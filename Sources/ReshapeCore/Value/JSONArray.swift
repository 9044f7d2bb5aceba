/// The elements of a JSON array: an array of `JSONValue` (it is a random-access, mutable,
/// range-replaceable collection, written as an array literal) that releases deeply nested values
/// without recursion (see `ValueStorage`).
public struct JSONArray: Sendable, Hashable, RandomAccessCollection, MutableCollection, RangeReplaceableCollection,
    ExpressibleByArrayLiteral, CustomStringConvertible
{
    private var storage: ValueStorage<JSONValue>

    /// An empty array.
    public init() {
        storage = ValueStorage([], values: { $0 })
    }

    /// An array of `elements`.
    public init(_ elements: [JSONValue]) {
        storage = ValueStorage(elements, values: { $0 })
    }

    /// An array of the elements written.
    public init(arrayLiteral elements: JSONValue...) {
        self.init(elements)
    }

    /// The elements as a Swift array.
    public var elements: [JSONValue] { storage.elements }

    /// The position of the first element.
    public var startIndex: Int { 0 }
    /// The position after the last element.
    public var endIndex: Int { storage.elements.count }

    /// The element at `position`.
    public subscript(position: Int) -> JSONValue {
        get { storage.elements[position] }
        set {
            makeUnique()
            storage.elements[position] = newValue
        }
    }

    /// Replaces the elements in `range` with `newElements`.
    public mutating func replaceSubrange<C: Collection>(_ range: Range<Int>, with newElements: C) where C.Element == JSONValue {
        makeUnique()
        storage.elements.replaceSubrange(range, with: newElements)
    }

    /// Reserves room for `minimumCapacity` elements.
    public mutating func reserveCapacity(_ minimumCapacity: Int) {
        makeUnique()
        storage.elements.reserveCapacity(minimumCapacity)
    }

    /// The same elements in the same order.
    public static func == (lhs: JSONArray, rhs: JSONArray) -> Bool {
        JSONValue.array(lhs) == JSONValue.array(rhs)
    }

    /// Hashes the elements in order.
    public func hash(into hasher: inout Hasher) {
        JSONValue.array(self).hash(into: &hasher)
    }

    /// The array as compact JSON text.
    public var description: String { JSONValue.array(self).description }

    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = ValueStorage(storage.elements, values: { $0 }) }
    }
}
