/// A compiled JSONPath: the RFC 9535 subset that rules use.
///
/// `$`, `.name`, `['name']`/`["name"]`, `[n]` and `[-n]`, `.*`/`[*]`, `..name`, `..*` (and
/// `..['name']`, `..[n]`, `..[*]`). Filters, slices and unions are rejected when rules are compiled.
struct JSONPath: Sendable, CustomStringConvertible {
    enum Selector: Sendable {
        case name(MemberName)
        case index(Int)
        case wildcard
    }

    enum Segment: Sendable {
        /// Selects among the children of each input node.
        case child(Selector)
        /// Selects among the descendants of each input node.
        case descendant(Selector)
    }

    /// The text the path was compiled from.
    let text: String
    let segments: [Segment]

    var description: String { text }

    /// True when the path can select at most one node: only names and indices, no wildcard or `..`.
    var isSingular: Bool {
        segments.allSatisfy { segment in
            if case .child(let selector) = segment, case .wildcard = selector { return false }
            if case .descendant = segment { return false }
            return true
        }
    }

    /// True for `$` alone.
    var isRoot: Bool { segments.isEmpty }

    var descendantSegmentCount: Int {
        segments.reduce(0) { count, segment in
            if case .descendant = segment { return count + 1 }
            return count
        }
    }
}

/// A member name from a path, with bytes that stay put for as long as the compiled rules live, so
/// that selections can point at them.
// Immutable after init; the storage is only read.
final class MemberName: @unchecked Sendable {
    let text: String
    private let storage: UnsafeMutableRawBufferPointer

    init(_ text: String) {
        self.text = text
        let utf8 = Array(text.utf8)
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(utf8.count, 1), alignment: 1)
        storage.copyBytes(from: utf8)
        count = utf8.count
    }

    private let count: Int

    var bytes: KeyBytes { KeyBytes(rebasing: UnsafeRawBufferPointer(storage)[0..<count]) }

    deinit {
        storage.deallocate()
    }
}
