import ReshapeCore

/// What a `reshape_rules *` points to: a retained box around compiled, immutable rules.
final class RulesHandle: Sendable {
    let rules: Rules
    /// The op of each rule as a static C string, for `reshape_rules_op`: looked up once here, so
    /// the call neither allocates nor hashes.
    nonisolated(unsafe) let ops: [UnsafePointer<CChar>]

    private init(_ rules: Rules) {
        self.rules = rules
        // Every compiled op is a known one; the empty string stands in should the tables ever
        // disagree, rather than a trap.
        self.ops = rules.ops.map { OpNames.cString(for: $0) ?? OpNames.empty }
    }

    /// A new handle the C caller owns.
    static func retain(_ rules: Rules) -> OpaquePointer {
        OpaquePointer(Unmanaged.passRetained(RulesHandle(rules)).toOpaque())
    }

    /// The rules behind a handle, without taking ownership.
    static func rules(_ handle: OpaquePointer?) -> Rules? {
        guard let handle else { return nil }
        return Unmanaged<RulesHandle>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue().rules
    }

    /// The handle itself, without taking ownership: calling through it borrows its rules
    /// instead of copying them.
    static func handle(_ handle: OpaquePointer?) -> RulesHandle? {
        guard let handle else { return nil }
        return Unmanaged<RulesHandle>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
    }

    /// Gives up the caller's ownership.
    static func release(_ handle: OpaquePointer?) {
        guard let handle else { return }
        Unmanaged<RulesHandle>.fromOpaque(UnsafeRawPointer(handle)).release()
    }
}
