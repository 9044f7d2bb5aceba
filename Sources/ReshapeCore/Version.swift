/// Reshape's version. The C header's `RESHAPE_VERSION_*` macros and the Python package carry the
/// same numbers; a test in each suite checks that they agree.
public enum ReshapeVersion {
    /// Incremented for incompatible changes to the rules document or the APIs.
    public static let major = 0
    /// Incremented for compatible additions.
    public static let minor = 1
    /// Incremented for fixes.
    public static let patch = 0
    /// `"major.minor.patch"`.
    public static let string = "\(major).\(minor).\(patch)"
}
