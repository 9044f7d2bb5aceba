#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What one `TextRoute` pass works with: a parser, the fast path's name scratch and the record
/// names met. Kept in a pool between calls, so that a client reshaping one small response after
/// another allocates little and renames each member name once, not once per call.
final class TextWorkspace {
    /// One stored property, so that a pass pays one dynamic exclusivity check, not one per part.
    private var state = State()

    private struct State: ~Copyable {
        var parser = JSONParser(
            text: UnsafeRawBufferPointer(start: nil, count: 0), allowDuplicateKeys: false, errorCode: .invalidJSON,
            rawDepth: nil, maxDepth: Limits.defaultMaxDepth)
        var scratch = JSONParser.NameScratch(cacheCapacity: 256)
        var names = SeenHashes()
        var decodedKey = ByteBuffer(capacity: 64)
    }

    /// See `TextRoute.reshape`; `growth` gets what the records add to the tree's output bound
    /// (`JSONParser.NameScratch.growth`).
    func reshape(
        _ input: UnsafeRawBufferPointer, shape: TextRoute.Shape, isObject: Bool, limits: ResolvedLimits,
        into out: inout ByteBuffer, growth: inout Int
    ) -> Bool {
        state.scratch.growth = 0
        defer { growth = state.scratch.growth }
        return Self.reshape(input, shape: shape, isObject: isObject, limits: limits, state: &state, into: &out)
    }

    /// See `TextRoute.reshape`: a document that is one record (`TextRoute.forRecord`).
    func reshapeRecord(
        _ input: UnsafeRawBufferPointer, shape: TextRoute.Shape, limits: ResolvedLimits, into out: inout ByteBuffer,
        growth: inout Int
    ) -> Bool {
        state.scratch.growth = 0
        defer { growth = state.scratch.growth }
        return Self.reshapeRecord(input, shape: shape, limits: limits, state: &state, into: &out)
    }

    private static func reshapeRecord(
        _ input: UnsafeRawBufferPointer, shape: TextRoute.Shape, limits: ResolvedLimits, state: inout State,
        into out: inout ByteBuffer
    ) -> Bool {
        // As for a record of an array at the root: one level more than the document needs.
        let depthLeft = limits.maxDepth - shape.outputDepth
        guard depthLeft > 1 else { return false }
        state.parser.restart(with: input)
        let mark = out.count
        // Output past the output limit is the tree's to refuse.
        let outputLimit = out.count.addingClamped(limits.maxOutputBytes)
        let done = state.parser.transformRecord(
            shape.fast, id: nil, depthLeft: depthLeft, into: &out, scratch: &state.scratch, outputLimit: outputLimit,
            wholeText: true) && out.count <= outputLimit
        if !done { out.truncate(to: mark) }
        return done
    }

    private static func reshape(
        _ input: UnsafeRawBufferPointer, shape: TextRoute.Shape, isObject: Bool, limits: ResolvedLimits,
        state: inout State, into out: inout ByteBuffer
    ) -> Bool {
        state.names.removeAll()
        state.parser.restart(with: input)
        let mark = out.count
        let done = reshape(
            input, shape: shape, isObject: isObject, limits: limits, parser: &state.parser, scratch: &state.scratch,
            names: &state.names, decodedKey: &state.decodedKey, into: &out)
        if !done { out.truncate(to: mark) }
        return done
    }

    private static func reshape(
        _ input: UnsafeRawBufferPointer, shape: TextRoute.Shape, isObject: Bool, limits: ResolvedLimits,
        parser: inout JSONParser, scratch: inout JSONParser.NameScratch, names: inout SeenHashes,
        decodedKey: inout ByteBuffer, into out: inout ByteBuffer
    ) -> Bool {
        parser.skipWhitespace()
        // As `RecordRunner` reckons it: the records start at depth 1 in the input.
        let depthLeft = limits.maxDepth - max(1, shape.outputDepth)
        guard depthLeft > 1 else { return false }
        let closer = UInt8(ascii: isObject ? "}" : "]")
        parser.index += 1
        parser.skipWhitespace()
        // An empty collection is the tree's (rules may see it as the empty value it is).
        guard parser.index < input.count, input[parser.index] != closer else { return false }

        // Output past the output limit is the tree's to refuse.
        let outputLimit = out.count.addingClamped(limits.maxOutputBytes)
        shape.before.withUnsafeBytes { out.append($0) }
        var first = true
        while true {
            var key: JSONParser.StringSpan? = nil
            if isObject {
                guard input[parser.index] == UInt8(ascii: "\""), let span = try? parser.scanString() else { return false }
                key = span
                if span.hasEscapes {
                    decodedKey.removeAll()
                    JSONParser.decodeEscapes(input, span, into: &decodedKey)
                }
                let hash = span.hasEscapes
                    ? decodedKey.withBytes { RecordNames.hash($0) }
                    : RecordNames.hash(UnsafeRawBufferPointer(rebasing: input[span.start..<span.end]))
                // Meeting hashes may be a duplicate: the tree refuses it, or settles it.
                guard names.insert(hash) else { return false }
                parser.skipWhitespace()
                guard parser.index < input.count, input[parser.index] == UInt8(ascii: ":") else { return false }
                parser.index += 1
                parser.skipWhitespace()
            }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            let done: Bool
            if let key {
                done = key.hasEscapes
                    ? decodedKey.withBytes {
                        parser.transformRecord(
                            shape.fast, id: $0, depthLeft: depthLeft, into: &out, scratch: &scratch, outputLimit: outputLimit,
                            wholeText: false)
                    }
                    : parser.transformRecord(
                        shape.fast, id: UnsafeRawBufferPointer(rebasing: input[key.start..<key.end]), depthLeft: depthLeft,
                        into: &out, scratch: &scratch, outputLimit: outputLimit, wholeText: false)
            } else {
                done = parser.transformRecord(
                    shape.fast, id: nil, depthLeft: depthLeft, into: &out, scratch: &scratch, outputLimit: outputLimit,
                    wholeText: false)
            }
            guard done else { return false }
            parser.skipWhitespace()
            guard parser.index < input.count else { return false }
            if input[parser.index] == UInt8(ascii: ",") {
                parser.index += 1
                parser.skipWhitespace()
                guard parser.index < input.count else { return false }
                continue
            }
            guard input[parser.index] == closer else { return false }
            parser.index += 1
            break
        }
        parser.skipWhitespace()
        guard parser.index == input.count else { return false }
        shape.after.withUnsafeBytes { out.append($0) }
        return out.count <= outputLimit
    }

    /// Workspaces not in use, shared by the threads calling one `Rules`.
    final class Pool: @unchecked Sendable {
        private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        private var idle: [TextWorkspace] = []
        /// Workspaces kept at most: one per thread that calls at once, within reason.
        private static let kept = 16

        init() {
            pthread_mutex_init(mutex, nil)
        }

        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        }

        /// An idle workspace, or a new one.
        func take() -> TextWorkspace {
            pthread_mutex_lock(mutex)
            let workspace = idle.popLast()
            pthread_mutex_unlock(mutex)
            return workspace ?? TextWorkspace()
        }

        /// Gives `workspace` back (or lets it go when enough are kept).
        func give(_ workspace: TextWorkspace) {
            pthread_mutex_lock(mutex)
            if idle.count < Self.kept { idle.append(workspace) }
            pthread_mutex_unlock(mutex)
        }
    }
}

/// Hashes of the names met so far: a list while it is short, a set beyond.
private struct SeenHashes {
    private var list: [UInt64] = []
    private var set: Set<UInt64>? = nil

    /// Adds `hash`; false when it was there.
    mutating func insert(_ hash: UInt64) -> Bool {
        if set != nil { return set?.insert(hash).inserted ?? false }
        if list.contains(hash) { return false }
        list.append(hash)
        if list.count == 32 { set = Set(list) }
        return true
    }

    mutating func removeAll() {
        list.removeAll(keepingCapacity: true)
        set = nil
    }
}
