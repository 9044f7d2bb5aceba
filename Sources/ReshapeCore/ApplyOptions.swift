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

    /// JSON Lines in: each line of the input is a document, reshaped on its own; each result is
    /// written on a line of its own. Lines holding only white space are skipped.
    public static let inputLines = ApplyOptions(rawValue: 1 << 2)

    /// JSON Lines out: the resulting collection is written one record per line. The result must
    /// be an array, or an object whose one member is an array (`keyedToArray`'s `wrapIn`).
    public static let outputLines = ApplyOptions(rawValue: 1 << 3)

    /// With `inputLines`: a line that is not valid JSON is skipped (and reported to the caller's
    /// handler, if any) instead of failing the whole input.
    public static let skipInvalidLines = ApplyOptions(rawValue: 1 << 4)

    /// Every option this version knows.
    public static let all: ApplyOptions = [.pretty, .allowDuplicateKeys, .inputLines, .outputLines, .skipInvalidLines]

    /// Refuses unknown flags and options that do not go together, as `apply` does before it reads
    /// anything: a caller can check before it opens its input.
    /// - Throws: `invalid_argument`.
    public func validate() throws(ReshapeError) {
        let unknown = subtracting(.all)
        guard unknown.isEmpty else {
            throw ReshapeError(.invalidArgument, "unknown option flags 0x\(hex(unknown.rawValue, width: 1))")
        }
        if contains(.pretty) && (contains(.inputLines) || contains(.outputLines)) {
            throw ReshapeError(.invalidArgument, "pretty output cannot be JSON Lines")
        }
        if contains(.skipInvalidLines) && !contains(.inputLines) {
            throw ReshapeError(.invalidArgument, "skipping invalid lines needs JSON Lines input")
        }
    }
}
