/// A compiled JSONPath: RFC 9535 queries.
///
/// `$`, `.name`, `['name']`/`["name"]`, `[n]` and `[-n]`, `.*`/`[*]`, slices `[start:end:step]`,
/// filters `[?expression]`, unions of several selectors in one bracket (`['a','b']`, `[0,2]`), each
/// as a child segment or after `..` for every descendant.
struct JSONPath: Sendable, CustomStringConvertible {
    indirect enum Selector: Sendable {
        case name(MemberName)
        case index(Int)
        case wildcard
        /// `[start:end:step]`: nil where the slice leaves it out.
        case slice(start: Int?, end: Int?, step: Int?)
        /// `[?expression]`: the children for which the expression holds.
        case filter(FilterExpression)
        /// Several selectors in one bracket (none a union): their results, selector by selector.
        case union([Selector])
    }

    enum Segment: Sendable {
        /// Selects among the children of each input node.
        case child(Selector)
        /// Selects among the descendants of each input node.
        case descendant(Selector)

        var selector: Selector {
            switch self {
            case .child(let selector), .descendant(let selector): selector
            }
        }
    }

    /// The text the path was compiled from.
    let text: String
    let segments: [Segment]

    var description: String { text }

    /// True when the path can select at most one node: only names and indices, no wildcard or `..`.
    var isSingular: Bool {
        segments.allSatisfy { segment in
            guard case .child(let selector) = segment else { return false }
            switch selector {
            case .name, .index: return true
            default: return false
            }
        }
    }

    /// True when a filter of the path reads the document's root (`$`): what it selects in one part
    /// of the document depends on the rest.
    var readsRoot: Bool {
        segments.contains { $0.selector.readsRoot }
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
