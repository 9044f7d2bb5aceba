/// How `Rules.apply` reads its input and writes its output. The raw values are the C API's flags.
public struct ApplyOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32

    /// Creates options from raw flag bits (`RESHAPE_PRETTY`, `RESHAPE_ALLOW_DUPLICATE_KEYS`).
    /// Unknown bits are rejected by `apply` with `invalid_argument`.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Indented output: two spaces per level, one member or element per line.
    public static let pretty = ApplyOptions(rawValue: 1 << 0)

    /// Let the last of duplicate member names win (in the position of the first) instead of
    /// failing with `invalid_json`.
    public static let allowDuplicateKeys = ApplyOptions(rawValue: 1 << 1)

    /// Every option this version knows.
    public static let all: ApplyOptions = [.pretty, .allowDuplicateKeys]
}
