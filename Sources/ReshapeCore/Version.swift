/// Reshape's version. The C header's `RESHAPE_VERSION_*` macros and the Python package carry the
/// same numbers; a test in each suite checks that they agree.
public enum ReshapeVersion {
    /// Incremented for incompatible changes to the rules document or the APIs.
    public static let major = 0
    /// Incremented for compatible additions; before 1.0, also for incompatible changes (0.2
    /// changed the size of the C API's `reshape_error`), as the C SONAME and the Python loader assume.
    public static let minor = 2
    /// Incremented for fixes.
    public static let patch = 0
    /// `"major.minor.patch"`.
    public static let string = "\(major).\(minor).\(patch)"
    /// `major * 10000 + minor * 100 + patch` (`RESHAPE_VERSION_NUMBER` in C): one number to compare.
    public static let number = major * 10000 + minor * 100 + patch
}
