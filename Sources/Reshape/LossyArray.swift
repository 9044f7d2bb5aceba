import ReshapeCore

/// An array that drops the elements that fail to decode, and says which and why.
///
/// For lists where one bad record should not cost the whole response (seed 001's `JSONArray`
/// with `flatMap`). Lossy never means silent: every dropped element is kept in ``drops`` as a
/// ``DecodingDiagnostic`` (index, normalized path, reason), and ``ResponseDecoder`` also returns
/// all drops of a decoding from ``ResponseDecoder/decodeWithDiagnostics(_:from:)``.
///
/// Use it as a type (`LossyArray<Repository>`) or as a property wrapper:
///
/// ```swift
/// struct Page: Decodable {
///     @LossyArray var repositories: [Repository]
/// }
/// page.repositories        // the elements that decoded
/// page.$repositories.drops // what was dropped, and why
/// ```
///
/// Only the elements are lenient: a missing member, `null` or a value that is not an array still
/// fails decoding.
@propertyWrapper
public struct LossyArray<Element: Decodable>: Decodable {
    /// The elements that decoded, in order.
    public var wrappedValue: [Element]
    /// The elements that failed to decode and were dropped, in order. Their paths use the names the
    /// decoder reported (see ``Swift/Array/normalizedPath``).
    public private(set) var drops: [DecodingDiagnostic]

    /// The wrapper itself, for its ``drops``: `page.$repositories.drops`.
    public var projectedValue: LossyArray<Element> { self }

    /// The elements that decoded, in order (the same as ``wrappedValue``).
    public var elements: [Element] { wrappedValue }

    /// Creates an array with nothing dropped.
    /// - Parameter wrappedValue: The elements.
    public init(wrappedValue: [Element]) {
        self.wrappedValue = wrappedValue
        self.drops = []
    }

    /// Decodes an array, dropping the elements that fail to decode.
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` when the value is not an array (or is `null` or missing).
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var elements: [Element] = []
        var drops: [DecodingDiagnostic] = []
        if let count = container.count { elements.reserveCapacity(count) }
        while !container.isAtEnd {
            let index = container.currentIndex
            do {
                elements.append(try container.decode(Element.self))
            } catch {
                // The element's own coding path: the array's, then the element's index key.
                let elementPath = decoder.codingPath + [ElementKey(index: index)]
                // Step over the element, reading it to say what was found; when even that fails,
                // give up loudly rather than loop.
                let element = try? container.decode(JSONValue.self)
                if element == nil { _ = try? container.decode(SkippedValue.self) }
                if container.currentIndex == index { throw error }
                let dropped = DroppedElement(codingPath: elementPath, index: index, error: error)
                drops.append(dropped.record(in: decoder, found: element))
            }
        }
        self.wrappedValue = elements
        self.drops = drops
    }
}

extension LossyArray: Encodable where Element: Encodable {
    /// Encodes the elements as an array (drops are not encoded).
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: What encoding an element throws.
    public func encode(to encoder: any Encoder) throws {
        try wrappedValue.encode(to: encoder)
    }
}

extension LossyArray: Sendable where Element: Sendable {}

/// Equal when the elements are: ``drops`` are diagnostics of one decoding, not part of the value
/// (they are not encoded either). A struct holding a `LossyArray` can then synthesize `==`.
extension LossyArray: Equatable where Element: Equatable {
    /// Whether the two arrays have equal elements, in the same order.
    /// - Parameters:
    ///   - lhs: An array.
    ///   - rhs: Another array.
    /// - Returns: `lhs.wrappedValue == rhs.wrappedValue`.
    public static func == (lhs: LossyArray<Element>, rhs: LossyArray<Element>) -> Bool {
        lhs.wrappedValue == rhs.wrappedValue
    }
}

/// Hashes the elements, as ``==`` compares them.
extension LossyArray: Hashable where Element: Hashable {
    /// Feeds the elements to `hasher`.
    /// - Parameter hasher: The hasher to use.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(wrappedValue)
    }
}

extension LossyArray: RandomAccessCollection {
    /// The position of the first element.
    public var startIndex: Int { wrappedValue.startIndex }
    /// The position after the last element.
    public var endIndex: Int { wrappedValue.endIndex }
    /// The element at `position`.
    /// - Parameter position: A valid index.
    public subscript(position: Int) -> Element { wrappedValue[position] }
}

/// The key of an element of an unkeyed container, named as `JSONDecoder` names it.
struct ElementKey: CodingKey {
    let index: Int
    var stringValue: String { "Index \(index)" }
    var intValue: Int? { index }

    init(index: Int) {
        self.index = index
    }

    init?(stringValue: String) {
        nil
    }

    init?(intValue: Int) {
        self.index = intValue
    }
}
