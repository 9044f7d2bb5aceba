import CReshapeABI
import ReshapeCore

/// `reshape_limits` (C) to `Limits` (Swift): 0 is the default; a size_t beyond `Int.max` (which
/// arrives negative) means no limit at all.
enum LimitsConversion {
    static func limits(from pointer: UnsafePointer<reshape_limits>) -> Result<Limits, ReshapeError> {
        // Only the version field is read before the version is known to be one we understand.
        let version = UnsafeRawPointer(pointer).load(as: UInt32.self)
        guard version >= 1, version <= UInt32(RESHAPE_LIMITS_VERSION) else {
            return .failure(ReshapeError(
                .invalidArgument, "limits->version is \(version); this library knows versions 1 to \(RESHAPE_LIMITS_VERSION)"))
        }
        let fields = pointer.pointee
        var limits = Limits()
        if let value = size(fields.max_depth) { limits.maxDepth = value }
        if let value = size(fields.max_rules_bytes) { limits.maxRulesBytes = value }
        limits.maxSelected = size(fields.max_selected)
        limits.maxOutputBytes = size(fields.max_output_bytes)
        limits.maxWork = size(fields.max_work)
        return .success(limits)
    }

    /// nil for 0 (the default); `Int.max` for sizes Swift sees as negative.
    private static func size(_ value: Int) -> Int? {
        if value == 0 { return nil }
        return value < 0 ? .max : value
    }
}
