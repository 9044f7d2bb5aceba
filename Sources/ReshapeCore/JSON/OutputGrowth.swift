/// What a rule adds to the output's bound (`Limits.maxOutputBytes`, docs/limits.md): `values`
/// new values and `bytes` bytes of text in all, each value counting at least
/// `Tree.minimumValueBytes` (about what jansson spends on it, so that the bound also bounds
/// memory). An op says what an edit adds once, as one of these, and the whole tree
/// (`Document.grow`) and a record's filters (`TokenArena.grow`) count that.
struct OutputGrowth {
    var values = 0
    var bytes = 0

    /// What it adds to the bound.
    var bound: Int { max(bytes, values.multipliedClamped(by: Tree.minimumValueBytes)) }

    /// Text alone, no new value: a longer name, quotes.
    static func text(_ bytes: Int) -> OutputGrowth { OutputGrowth(bytes: max(0, bytes)) }

    /// A member name renamed from `old` bytes to `new`: what it grew by (a shorter name leaves
    /// the bound as it was).
    static func renamed(from old: Int, to new: Int) -> OutputGrowth { .text(new - old) }

    /// A value wrapped in a new object under a name of `nameBytes` bytes: `{"name":` and `}`.
    static func wrapping(nameBytes: Int) -> OutputGrowth { OutputGrowth(values: 1, bytes: nameBytes + 4) }

    /// A new member, a name of `nameBytes` bytes with a value that adds `value`: `"name":value,`.
    static func member(nameBytes: Int, _ value: OutputGrowth) -> OutputGrowth {
        OutputGrowth(values: value.values, bytes: nameBytes.addingClamped(4).addingClamped(value.bytes))
    }
}
