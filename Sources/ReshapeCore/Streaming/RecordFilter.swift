internal import CSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reshaping a record as its tokens go by: each per-record rule is a filter that takes the tokens
/// of the record as the rules before it left them and passes on its own, and the last writes the
/// text. No tree is built, and no record is read twice.
///
/// Each op says in its file under `Ops/` what its filter does (`Operation.recordFilter`), or that
/// a record needs its tree for it. A filter gives up (returns false) wherever the tree must
/// decide (a value a rule rejects, a name that would collide, nesting near the depth limit...):
/// the record then takes the tree, which gives the result, or the error, exactly.
///
/// The chain of filters is one thread's: `RecordFilterPlan` makes one per thread.
protocol RecordFilter: AnyObject {
    /// A record starts. `key` is its member name when the record is a member of an object
    /// collection (as this filter sees the collection), nil for an element.
    func start(key: UnsafeRawBufferPointer?) -> Bool

    /// Takes the record's next token. False: the record needs its tree.
    func take(_ token: RecordToken) -> Bool

    /// While it is set, `take` passes each token on as it came, and nothing else is asked of
    /// the filter: its chain sets it between a record's members, for a member the filter does
    /// nothing to (see `MemberUse.doesNothing`) that some other filter must see, and clears it
    /// before the record's end (see `RecordFilterChain.setAside(_:)`). Given once, as the chain
    /// is made; a filter that wraps another gives it the same.
    var aside: AsideFlag { get set }

    /// Whether the container that `token` opens (the next value this filter would take) would
    /// go through it unchanged, all of it, without the filter needing to see its tokens: the
    /// filter's path selects nothing in it and nothing waits for it. Changes nothing.
    func ignores(_ token: RecordToken) -> Bool

    /// Whether the container that `token` opens may go by without the filter seeing its tokens:
    /// it either ignores it (see `ignores`), or does to it only what a text pass does at every
    /// depth in it (`{}`, `[]` or blank strings to `null`, every member renamed), which it adds
    /// to `pass`. Changes nothing; `skip` follows when every filter agrees. By default, `ignores`.
    func passes(_ token: RecordToken, into pass: inout ContainerPass) -> Bool

    /// The container `token` opens went by, every filter ignoring it or passing it: none of its
    /// tokens come.
    func skip(_ token: RecordToken)

    /// Whether the record that `token` opens (the next value this filter would take) may go by
    /// member by member, each as the rule's member needs say (`Operation.recordMemberNeeds`),
    /// without the filter seeing any of its tokens: the filter does nothing to the record but to
    /// its members, one at a time (it adds no member at its end, and does not replace it).
    /// Changes nothing; `skip` follows when every filter agrees. By default, `passes` of a pass
    /// then dropped.
    func passesMembers(_ token: RecordToken) -> Bool

    /// The filter may give a member a name another member of its object has: the writer then
    /// compares the names it writes. Filters that add members make sure of it themselves.
    var renamesMembers: Bool { get }

    /// Every member name the filter takes goes on (renamed, perhaps), none dropped: the writer
    /// compares the names a renaming before it gives. By default, false.
    var passesEveryName: Bool { get }

    /// A filter after this one may drop member names (see `passesEveryName`): if it renames, it
    /// must compare the names it gives itself. Called once, as the chain is made.
    func namesMayBeDropped()

    /// A member of the record went by this filter without its name token (see `MemberUse`),
    /// named `hash` (`RecordNames.hash`) as this filter passes it on: false when the record must
    /// take its tree (a renaming that gives two members one name, which the writer does not see
    /// when a filter after it drops one). Asked only after `namesMayBeDropped`. By default, true.
    func memberWentBy(named hash: UInt64) -> Bool

    /// A filter after this one removed the record at its first token: whether this filter may
    /// let the record go without taking its other tokens, given its text (`record`, from its
    /// first byte). False when they must still come to it: on the tree, this filter's rule runs
    /// on the whole record before the removal, and may fail on what it holds (a member that
    /// conflicts, a value it cannot convert). By default, false.
    func letsRemovedRecordGo(_ record: UnsafeRawBufferPointer) -> Bool

    /// For a filter after this one that reads ahead in the record's text (see `FilterGate`):
    /// the names of the record's own members this filter may add, change or remove, when it
    /// passes on every other token at once, as it took it; nil (the default) when it may change
    /// anything, or hold tokens back.
    var recordMembersMade: [[UInt8]]? { get }

    /// When the filter makes each record of an object collection `{idKey: name, ...}` from its
    /// members, passing every other token on as it took it (`keyedToArray` at the collection):
    /// `idKey`. A chain that begins with it may copy a record from the text when every filter
    /// after it lets the record go by, the copy putting the id first itself (see
    /// `RecordFilterChain.copyRecord`). By default, nil.
    var recordIdKey: [UInt8]? { get }

    /// For a filter that makes the records (`recordIdKey`): what it adds to the whole tree's
    /// output bound (`Document.grow`) for a record whose name is `idBytes` bytes long. By
    /// default, 0.
    func recordGrowth(idBytes: Int) -> Int

    /// Takes the record's first token, `token`, which comes after the record's first members
    /// went past the filters (see `RecordFilterChain.handOver`): as `take`, but a filter that
    /// makes the records (`recordIdKey`) adds no id member, which went past with them. By
    /// default, `take`.
    func takeResumed(_ token: RecordToken) -> Bool
}

extension RecordFilter {
    var renamesMembers: Bool { false }

    var recordMembersMade: [[UInt8]]? { nil }

    var recordIdKey: [UInt8]? { nil }

    func recordGrowth(idBytes: Int) -> Int { 0 }

    func takeResumed(_ token: RecordToken) -> Bool { take(token) }

    func passes(_ token: RecordToken, into pass: inout ContainerPass) -> Bool { ignores(token) }

    func passesMembers(_ token: RecordToken) -> Bool {
        var pass = ContainerPass()
        return passes(token, into: &pass)
    }

    var passesEveryName: Bool { false }

    func letsRemovedRecordGo(_ record: UnsafeRawBufferPointer) -> Bool { false }

    func namesMayBeDropped() {}

    func memberWentBy(named hash: UInt64) -> Bool { true }
}

/// Whether a filter is set aside (`RecordFilter.aside`): a flag its chain writes, which the
/// filter reads through a pointer (a property the chain set through each filter would cost a
/// call per filter at every member, more than the filter it spares). Never set until a chain
/// gives one.
struct AsideFlag {
    private let flag: UnsafePointer<Bool>

    /// Never set: a false nothing writes.
    init() {
        flag = csystem_never_set()
    }

    /// Set while `flag` is true.
    init(_ flag: UnsafePointer<Bool>) {
        self.flag = flag
    }

    /// The chain has set the filter aside, for the member being read.
    @inline(__always)
    var isSet: Bool { flag.pointee }
}

/// The names given to the members of the open objects (their `RecordNames.hash`), for a filter
/// that renames, moves or makes members and compares the names it gives itself, since a filter
/// after it may drop one before the writer compares them (see `RecordFilter.namesMayBeDropped`).
struct DistinctNames {
    /// The objects open, innermost last: the depth of their members, where their names start.
    private var objects: [(depth: Int, start: Int)] = []
    private var hashes: [UInt64] = []

    mutating func reset() {
        objects.empty()
        hashes.empty()
    }

    /// Notes the name whose hash is `hash`, given to a member at `depth`; false when its object
    /// has that name already (or one of that hash), or more names than are compared one by one.
    mutating func insert(_ hash: UInt64, at depth: Int) -> Bool {
        if objects.last?.depth != depth { objects.append((depth, hashes.count)) }
        let start = objects[objects.count - 1].start
        guard hashes.count - start < JSONParser.rawCaptureMemberLimit else { return false }
        for position in start..<hashes.count where hashes[position] == hash { return false }
        hashes.append(hash)
        return true
    }

    /// The object whose members lie at `depth` ended.
    mutating func close(_ depth: Int) {
        guard let top = objects.last, top.depth == depth else { return }
        objects.removeLast()
        hashes.removeSubrange(top.start...)
    }
}

/// What an op makes of the scalar value of a member it selects by name in a container that goes
/// by as text (see `ContainerPass.edit(named:_:)`), given the value's token: the edit, and what
/// it adds to the output bound (`OutputGrowth.bound`); nil when the tree must decide (the op
/// fails at the value).
typealias TextValueEdit = @Sendable (RecordToken) -> (edit: ScalarEdit, growth: Int)?

/// Where an op's path selects, below some values, only members of some names at any depth
/// (`PathMatcher.namesSelectedAtAnyDepth`, `$..followers`), and the op edits their scalars on the
/// text: a container in those states goes by as text, those members' values edited by the pass
/// that copies it (`ContainerPass.edit(named:_:)`).
struct EditsBelow {
    let states: PathMatcher.States
    let names: [[UInt8]]
    let edit: TextValueEdit

    /// Nil when the path selects anything else below.
    init?(_ matcher: PathMatcher, _ edit: @escaping TextValueEdit) {
        guard let below = matcher.namesSelectedAtAnyDepth else { return nil }
        (states, names, self.edit) = (below.states, below.names, edit)
    }

    /// Whether a container in `states` goes by with the edit, which is then added to `pass`.
    func passes(_ states: PathMatcher.States, into pass: inout ContainerPass) -> Bool {
        guard states == self.states else { return false }
        pass.edit(named: names, edit)
        return true
    }
}

/// A scalar value's edit on the text (see `TextValueEdit`).
enum ScalarEdit {
    case keep
    case null
    case scalar(MadeScalar)
    /// A scalar's canonical text (a `mapValues` case's `to`), written as it is.
    case canonical([UInt8])
}

/// What the filters do at every depth of a container that goes by as text (see
/// `RecordFilter.passes`), gathered in rule order; a `RecordFastPath` does it on the text.
struct ContainerPass {
    /// `{}` becomes `null`.
    var nullEmptyObjects = false
    /// `[]` becomes `null`.
    var nullEmptyArrays = false
    /// A blank string (with `trim`, one of white space only) becomes `null`.
    var nullBlankStrings = false
    var trim = false
    /// How many renamings and drops were added (each filter adds one at most), watches and
    /// renamings or drops of the container's own members among them (see `watch(_:)`,
    /// `renameOwnMembers(_:)`, `dropOwnMembers(_:)`).
    var renameCount: Int { counts & 0xFFFF }
    /// How many of the renamings watch names (see `watch(_:)`).
    var watchCount: Int { (counts >> 16) & 0xFFFF }
    /// How many of the renamings rename or drop only the container's own members (see
    /// `renameOwnMembers(_:)`, `dropOwnMembers(_:)`).
    var ownMembersCount: Int { counts >> 32 }
    /// The renamings in the low 16 bits, the watches in the next 16, those of the own members
    /// above: one word, as the chain makes a pass for every container it is asked about
    /// (a word more costs outlined copies of the pass).
    private(set) var counts = 0
    /// A unit of each count in `counts`.
    static let watchUnit = 1 << 16
    static let ownMembersUnit = 1 << 32
    /// The renamings, in order, when they are gathered (nil: only counted, as when the chain
    /// looks for a pass it made before).
    private(set) var renames: [NameStep]? = nil
    /// Some renaming drops members (see `drop(named:)`).
    private(set) var dropsMembers = false
    /// Some renaming marks members for a value edit (see `edit(named:_:)`); known only once the
    /// renamings are gathered.
    var editsValues: Bool { renames?.contains { $0.edit != nil } ?? false }

    /// A renaming, and for one that marks members for a value edit, the edit. (Kept in one list,
    /// not two: the chain makes a pass for every container it is asked about, and each stored
    /// list costs a retain and a release each time.)
    struct NameStep {
        let rename: @Sendable (KeyBytes) -> [UInt8]?
        var edit: TextValueEdit? = nil
        /// The members it marks stop the pass, for the container to take its tokens (see
        /// `watch(_:)`).
        var watches = false
        /// For a step that watches: the hashes (`RecordNames.hash`) of the names it watches for.
        var watchedHashes: [UInt64] = []
        /// For a step that adds a member to an object that lacks it (see `fillOwnMembers(_:)`).
        var fill: Fill? = nil
        /// For a step that takes a member out of objects (see `takeMember(_:)`).
        var taken: TakenMember? = nil

        /// A step that only renames (or leaves) names: no drop, edit, watch, fill, or member taken.
        var onlyRenames: Bool { edit == nil && !watches && fill == nil && taken == nil }
    }

    /// A member taken out of each object a container copied from the text is (`hoist`), or out of
    /// each of its elements (`pluck`): its name, as the renamings before the step leave names.
    struct TakenMember {
        let name: [UInt8]
        let fromElements: Bool
        /// What the op makes of an empty container it would take the member out of.
        var empty: EmptyTaken = .givesBack
    }

    /// What an op that takes a member out of a container (see `TakenMember`) makes of an empty
    /// one: decided once, by the op's own edit of one (`made(by:ofEmpty:)`).
    enum EmptyTaken: Sendable {
        /// It stays (`pluck` of `[]`), perhaps nulled by the pass.
        case kept
        /// It becomes `null` (`hoist` of `{}` with `onMissing: "null"`).
        case null
        /// The filters decide (the op fails at it, or makes something else).
        case givesBack

        /// What `edit`, an op's edit of a selected value's tokens (`ValueHolding.Edit`), makes
        /// of an empty container of `kind` (`.object` or `.array`).
        static func made(by edit: ValueHolding.Edit, ofEmpty kind: ValueKinds) -> EmptyTaken {
            let tokens: [RecordToken] = kind == .array ? [.arrayStart, .arrayEnd] : [.objectStart, .objectEnd]
            guard let made = try? edit(tokens[...], TokenFilterValues(tokens: tokens[...], arena: nil)) else { return .givesBack }
            switch made {
            case .keep: return .kept
            case .null: return .null
            case .value(let range) where range == tokens.indices: return .kept
            case .array(let elements) where elements.isEmpty && kind == .array: return .kept
            default: return .givesBack
            }
        }
    }

    /// A member added at the end of an object that has none of its name (`default` at an
    /// object inside a record): `name` (as the renamings before the step leave names) and the
    /// canonical text of a scalar `value`; `growth` is what the op counts for adding it (see
    /// `OutputGrowth.member`).
    struct Fill {
        let name: [UInt8]
        let value: [UInt8]
        let growth: Int
    }

    /// A pass doing nothing; `gathering` keeps the renamings' functions.
    init(gathering: Bool = false) {
        if gathering { renames = [] }
    }

    /// Every member is renamed by `rename` (nil: the name stays), after the renamings added
    /// before.
    mutating func rename(_ rename: @escaping @Sendable (KeyBytes) -> [UInt8]?) {
        add(NameStep(rename: rename))
    }

    /// A step that does nothing to names: what a filter gives for a step it tested for `nil`
    /// just before (its stored step is not bound to a name there, which would copy it).
    static var nothingStep: NameStep { NameStep(rename: { _ in nil }) }

    /// Counts a renaming, and keeps it when the steps are gathered: the step is made only then
    /// (the chain asks for a pass for every container, and a step made costs a retain and a
    /// release of each of its functions).
    private mutating func add(_ step: @autoclosure () -> NameStep) {
        counts += 1
        if renames != nil { renames?.append(step()) }
    }

    /// The container's own members that `step` drops (made by `dropping(_:)`) go, name and
    /// value; a container in it, even empty, stops the pass, as for `renameOwnMembers(_:)`
    /// (`remove $[*].avatar.width` at `avatar`). (`step` is asked only when the steps are
    /// gathered.)
    mutating func dropOwnMembers(_ step: () -> NameStep) {
        counts += Self.ownMembersUnit | 1
        dropsMembers = true
        if renames != nil { renames?.append(step()) }
    }

    /// The step that drops the members named one of `names` (as the renamings added before
    /// leave them), for `dropOwnMembers(_:)`: made once, by the filter.
    static func dropping(_ names: [[UInt8]]) -> NameStep {
        NameStep(rename: { name in holds(names, name) ? ContainerPass.dropped : nil })
    }

    /// Adds the step `step` gives, made by `filling(_:)`: the container, an object, gains the
    /// step's member at its end, renamed by the renamings after it, unless one of its own members
    /// has that name (as the renamings before leave it): such a member stops the pass, as a
    /// watched one does, and the container takes its tokens. A container in it, even empty,
    /// stops the pass too, as for `renameOwnMembers(_:)`. (`step` is asked only when the steps
    /// are gathered.)
    mutating func fillOwnMembers(_ step: () -> NameStep) {
        counts += Self.ownMembersUnit | 1
        if renames != nil { renames?.append(step()) }
    }

    /// The step that adds `fill` to an object lacking its member (see `fillOwnMembers(_:)`): it
    /// watches for the name, and is made once, by the filter.
    static func filling(_ fill: Fill) -> NameStep {
        let name = fill.name
        return NameStep(
            rename: { key in name.withUnsafeBytes { $0.sameBytes(as: key) } ? ContainerPass.edited : nil }, edit: { _ in nil }, watches: true,
            watchedHashes: [name.withUnsafeBytes { RecordNames.hash($0) }], fill: fill)
    }

    /// Adds the step `step` gives, made by `taking(_:)`: the container, an object (`hoist`) or
    /// an array of objects (`pluck`), becomes the value of the step's member of it, or the array
    /// of those of its elements, copied with what the pass does; the member's name is compared as
    /// the renamings before the step leave names. An object (or element) of another kind, empty or
    /// without the member stops the pass, and the container takes its tokens; so does every such
    /// copy where a step other than a renaming everywhere comes before or after it. (`step` is
    /// asked only when the steps are gathered.)
    mutating func takeMember(_ step: () -> NameStep) {
        counts += 1
        if renames != nil { renames?.append(step()) }
    }

    /// The step that takes `member` out (see `takeMember(_:)`): it renames nothing, and is made
    /// once, by the filter.
    static func taking(_ member: TakenMember) -> NameStep {
        NameStep(rename: { _ in nil }, taken: member)
    }

    /// The container's own members are renamed by `rename` (nil: the name stays), after the
    /// renamings added before; a container in it, even empty, stops the pass, for the container
    /// to take its tokens (`renameKeys` that is not deep, at an object its path selects).
    mutating func renameOwnMembers(_ rename: @escaping @Sendable (KeyBytes) -> [UInt8]?) {
        counts += Self.ownMembersUnit
        add(NameStep(rename: rename))
    }

    /// Every member named one of `names` (as the renamings added before leave it) is dropped,
    /// name and value, at every depth (`remove $..name`): a renaming to `ContainerPass.dropped`.
    mutating func drop(named names: [[UInt8]]) {
        dropsMembers = true
        add(NameStep(rename: { name in ContainerPass.holds(names, name) ? ContainerPass.dropped : nil }))
    }

    /// Every member whose name (as the renamings added before leave it) `drops` holds for is
    /// dropped, name and value, at every depth (`remove $..* matching`).
    mutating func drop(where drops: @escaping @Sendable (KeyBytes) -> Bool) {
        dropsMembers = true
        add(NameStep(rename: { name in drops(name) ? ContainerPass.dropped : nil }))
    }

    /// Whether `name` is one of `names`: the test of the steps that drop, edit or watch members
    /// by name.
    static func holds(_ names: [[UInt8]], _ name: KeyBytes) -> Bool {
        names.contains { $0.withUnsafeBytes { $0.sameBytes(as: name) } }
    }

    /// What a renaming gives a member it drops: a byte no UTF-8 text holds, so no name.
    static var dropped: [UInt8] { [0xFF] }

    /// Whether `name`, given by a renaming, drops the member (see `dropped`).
    @inline(__always)
    static func drops(_ name: [UInt8]) -> Bool { name.count == 1 && name[0] == 0xFF }

    /// Every member named one of `names` (as the renamings added before leave it), at every
    /// depth, keeps its name and has its value edited by `edit` (`coerce $..name`): a renaming
    /// that gives `ContainerPass.edited` to those names, with `edit` at its place. A pass with
    /// value edits gives up on such a member whose value is a container (the tree edits it).
    mutating func edit(named names: [[UInt8]], _ edit: @escaping TextValueEdit) {
        add(NameStep(rename: { name in ContainerPass.holds(names, name) ? ContainerPass.edited : nil }, edit: edit))
    }

    /// What a renaming gives a member whose value it edits (see `edit(named:_:)`): a byte no
    /// UTF-8 text holds; the name stays.
    static var edited: [UInt8] { [0xFE] }

    /// Whether `name`, given by a renaming, marks the member's value for its edit.
    @inline(__always)
    static func edits(_ name: [UInt8]) -> Bool { name.count == 1 && name[0] == 0xFE }

    /// Adds the step `step` gives, made by `watching(_:)`: a member it marks, at any depth,
    /// stops the pass; the container then takes its tokens, from its start, and the filter that
    /// watches sees them (`PathCursor.watches`). Where no such member is met, that filter does
    /// nothing in the container. (`step` is asked only when the steps are gathered: a pass that
    /// is only counted takes no reference to its functions.)
    mutating func watch(_ step: () -> NameStep) {
        counts += Self.watchUnit | 1
        if renames != nil { renames?.append(step()) }
    }

    /// The step that watches for members named one of `names` (as the renamings added before
    /// leave it; see `watch(_:)`): a renaming that gives those names `ContainerPass.edited`,
    /// with an edit the pass never runs. Made once, by the filter's cursor.
    static func watching(_ names: [[UInt8]]) -> NameStep {
        NameStep(
            rename: { name in holds(names, name) ? ContainerPass.edited : nil },
            edit: { _ in nil }, watches: true, watchedHashes: names.map { $0.withUnsafeBytes { RecordNames.hash($0) } })
    }

    /// Adds what `other` does after what this pass does.
    mutating func merge(_ other: ContainerPass) {
        nullEmptyObjects = nullEmptyObjects || other.nullEmptyObjects
        nullEmptyArrays = nullEmptyArrays || other.nullEmptyArrays
        nullBlankStrings = nullBlankStrings || other.nullBlankStrings
        trim = trim || other.trim
        dropsMembers = dropsMembers || other.dropsMembers
        counts += other.counts & ~0xFFFF
        for step in other.renames ?? [] { add(step) }
    }

    /// What becomes `null` as the bits of a pass's key (bits 0-3; see `RecordFilterChain`).
    var nullingKey: UInt64 {
        (nullEmptyObjects ? 1 : 0) | (nullEmptyArrays ? 2 : 0) | (nullBlankStrings ? (trim ? 12 : 4) : 0)
    }
}

/// One token of a record as the filters pass it on. Its bytes stay valid for the whole record.
struct RecordToken: @unchecked Sendable {  // its bytes are only read
    enum Kind: UInt8 {
        case objectStart, objectEnd, arrayStart, arrayEnd
        /// A member name: `bytes` is the name, unescaped.
        case name
        /// `bytes` is the string, unescaped.
        case string
        /// `bytes` is the number's literal text; `flag` says it has a fraction or an exponent.
        case number
        /// `flag` is the value.
        case bool
        case null
    }

    let kind: Kind
    let bytes: UnsafeRawBufferPointer
    /// For a name or a string: its bytes are written as they are (no quote, backslash or control
    /// character). For a number: it is real. For a bool: its value.
    let flag: Bool
    /// For a name: `RecordNames.hash(bytes)`, computed once for every filter. For an array's
    /// start: 1 + its element count when a `LengthGate` counted it, else 0 (see
    /// `countedElements`).
    let hash: UInt64

    init(_ kind: Kind, _ bytes: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0), flag: Bool = false) {
        self.kind = kind
        self.bytes = bytes
        self.flag = flag
        hash = kind == .name ? RecordNames.hash(bytes) : 0
    }

    /// A name whose hash is known.
    init(name bytes: UnsafeRawBufferPointer, hash: UInt64, plain: Bool) {
        kind = .name
        self.bytes = bytes
        flag = plain
        self.hash = hash
    }

    /// The first token of an array whose elements a `LengthGate` counted: `count` of them.
    init(arrayStart bytes: UnsafeRawBufferPointer, elements count: Int) {
        kind = .arrayStart
        self.bytes = bytes
        flag = false
        hash = UInt64(count) &+ 1
    }

    /// For an array's first token: how many elements the array has, when a `LengthGate` before
    /// counted them (as the filters before it left them); -1 otherwise.
    @inline(__always)
    var countedElements: Int { kind == .arrayStart && hash > 0 ? Int(truncatingIfNeeded: hash &- 1) : -1 }

    /// Whether this is a name token for `name`'s name (a name token itself).
    @inline(__always)
    func isName(_ name: RecordToken) -> Bool {
        kind == .name && hash == name.hash && bytes.sameBytes(as: name.bytes)
    }

    // Made where used, not kept in globals: a global is made at its first use, and threads that
    // make their filters at once would meet there (ThreadSanitizer sees the Swift runtime's
    // once-guard, built without it, as no guard).
    static var objectStart: RecordToken { RecordToken(.objectStart) }
    static var objectEnd: RecordToken { RecordToken(.objectEnd) }
    static var arrayStart: RecordToken { RecordToken(.arrayStart) }
    static var arrayEnd: RecordToken { RecordToken(.arrayEnd) }
    static var null: RecordToken { RecordToken(.null) }

    /// A value begins with this token (a scalar, or a container's start).
    @inline(__always)
    var startsValue: Bool {
        switch kind {
        case .objectStart, .arrayStart, .string, .number, .bool, .null: true
        case .objectEnd, .arrayEnd, .name: false
        }
    }

    /// A container begins with this token.
    @inline(__always)
    var opens: Bool { kind == .objectStart || kind == .arrayStart }

    /// A container ends with this token.
    @inline(__always)
    var closes: Bool { kind == .objectEnd || kind == .arrayEnd }

    /// The number as the engine reads it.
    var number: NumberLiteral { NumberLiteral(text: bytes, isReal: flag) }
}

/// What a rule's filter is made with: where the collection lies when the rule runs, and what it
/// is then.
struct RecordFilterContext {
    let chain: [[UInt8]]
    let kind: RecordPlan.Kind
    /// The rule's 1-based number among the rules (0 when not known).
    var rule = 0
    /// The record is the whole document (a JSON Lines line): its paths start at the record,
    /// whose parent is `PathMatcher.aboveRoot`, and there is no collection.
    var lone = false

    /// Whether `path` selects the collection itself.
    func selectsCollection(_ path: JSONPath) -> Bool {
        !lone && PathOnChain(path, chain: chain).selectedDepths.contains(chain.count)
    }

    /// The needs (see `MemberNeeds`) of a filter that works on what `matcher` selects: a member
    /// whose value the path selects, with any value, or selects in, when it is a container; when the path selects the
    /// record itself, what `selectedRecord` says (by default, every member). Nil unless records
    /// are elements of the collection, all in the same states.
    ///
    /// With `selected`, a member whose value the path selects, with nothing below it, goes by as
    /// text when its value is a container of `selected`'s kind (see `SelectedContainerStep`).
    ///
    /// With `scalarEdit`, a member whose value the path selects, with nothing below it, goes by
    /// when its value is a scalar, edited on the text (`MemberUse.edit`).
    func pathNeeds(
        _ matcher: PathMatcher, selectedRecord: (@Sendable (RecordToken) -> ValueKinds)? = nil, selected: SelectedContainerStep? = nil,
        scalarEdit: TextValueEdit? = nil
    ) -> MemberNeeds? {
        guard let record = recordStates(matcher) else { return nil }
        let whole = record & matcher.selected != 0
        let watched = WatchedNames(matcher)
        return { name in
            let states = matcher.child(record, name: name.bytes, hash: name.hash)
            if !whole, let use = watched?.use(states) { return use }
            if states & matcher.selected != 0 {
                if !whole, let selected, states & ~matcher.selected == 0 { return selected.use }
                if !whole, let scalarEdit, states & ~matcher.selected == 0 {
                    var use = MemberUse(tokens: .containers, keepsMember: true)
                    use.edit = scalarEdit
                    return use
                }
                // What it does to the record it selects may make other members of this one.
                return MemberUse(tokens: .all, keepsMember: !whole)
            }
            // A path that goes on below a member selects nothing in a scalar (`$..price` past
            // `"name": "x"`): only a container's tokens are needed.
            var kinds: ValueKinds = states != 0 ? .containers : []
            if whole { kinds.formUnion(selectedRecord?(name) ?? .all) }
            return MemberUse(tokens: kinds, keepsMember: !whole)
        }
    }

    /// As `pathNeeds`, but for an op that edits the scalar values its path selects by name at
    /// any depth (`PathMatcher.namesSelectedAtAnyDepth`, `$..followers`): a member whose value
    /// holds them goes past as text, `edit` converting them on it (`ContainerPass.edit(named:_:)`).
    /// A member whose scalar value the path selects goes by too, edited by `edit`.
    func pathNeeds(_ matcher: PathMatcher, editingBelow edit: @escaping TextValueEdit) -> MemberNeeds? {
        guard let needs = pathNeeds(matcher, scalarEdit: edit) else { return nil }
        guard let below = EditsBelow(matcher, edit), let record = recordStates(matcher) else { return needs }
        return { name in
            var use = MemberUse()
            return below.passes(matcher.child(record, name: name.bytes, hash: name.hash), into: &use.pass) ? use : needs(name)
        }
    }

    /// The states of every record, for `matcher`, when they do not depend on the record's place
    /// (its index in an array collection, its name in an object one); nil otherwise.
    func recordStates(_ matcher: PathMatcher) -> PathMatcher.States? {
        guard let parent = recordParent(matcher), !matcher.filters(parent) else { return nil }
        let record: PathMatcher.States
        switch kind {
        case .array: record = matcher.child(parent, index: 0)
        case .object:
            guard !matcher.dependsOnName(parent) else { return nil }
            let none = UnsafeRawBufferPointer(start: nil, count: 0)
            record = matcher.child(parent, name: none, hash: RecordNames.hash(none))
        }
        // A member's states would depend on its value (a filter's verdict).
        return matcher.filters(record) ? nil : record
    }

    /// The states, for `matcher`, of the collection's children: nil when which record a state
    /// reaches depends on the record's place among the others (an index into the collection),
    /// or when a filter tests a member of the envelope. (A filter may test the records: the
    /// `FilterGate` then holds each record.)
    func recordParent(_ matcher: PathMatcher) -> PathMatcher.States? {
        if lone { return PathMatcher.aboveRoot }
        var states = matcher.root
        for name in chain {
            if matcher.filters(states) { return nil }
            states = name.withUnsafeBytes { matcher.child(states, name: $0, hash: RecordNames.hash($0)) }
        }
        if kind == .array && matcher.dependsOnIndex(states) { return nil }
        return states
    }

    /// The filter of a rule that works on what `matcher` selects in records whose parent is in
    /// `parent` (see `recordParent`): `make` builds it around a cursor that follows the path.
    /// When the path has filter selectors, a `FilterGate` before it holds each child they test
    /// until the child ends, and gives the cursor their verdicts; when it counts elements from
    /// the end, a `LengthGate` holds each array it steps into that way and counts it.
    static func along(
        _ matcher: PathMatcher, parent: PathMatcher.States,
        _ make: @escaping @Sendable (_ cursor: PathCursor, _ next: any RecordFilter, _ arena: TokenArena) -> any RecordFilter
    ) -> RecordFilterMaker {
        if matcher.counting != 0 {
            // A path that both filters and counts from the end: the tree decides.
            guard matcher.filtering == 0 else { return .needsTree }
            return .filter { next, arena in
                LengthGate(cursor: PathCursor(matcher, parent: parent), next: make(PathCursor(matcher, parent: parent), next, arena))
            }
        }
        guard matcher.filtering != 0 else {
            return .filter { next, arena in make(PathCursor(matcher, parent: parent), next, arena) }
        }
        return .filter { next, arena in
            let verdicts = FilterVerdicts()
            let filter = make(PathCursor(matcher, parent: parent, verdicts: verdicts), next, arena)
            return FilterGate(
                cursor: PathCursor(matcher, parent: parent, verdicts: verdicts), verdicts: verdicts, arena: arena, next: filter)
        }
    }
}

/// The kinds of value a member may hold, by its value's first token.
struct ValueKinds: OptionSet, Sendable {
    let rawValue: UInt8

    init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    static let string = ValueKinds(rawValue: 1 << 0)
    static let number = ValueKinds(rawValue: 1 << 1)
    static let bool = ValueKinds(rawValue: 1 << 2)
    static let null = ValueKinds(rawValue: 1 << 3)
    static let object = ValueKinds(rawValue: 1 << 4)
    static let array = ValueKinds(rawValue: 1 << 5)
    static var containers: ValueKinds { [.object, .array] }
    static var scalars: ValueKinds { [.string, .number, .bool, .null] }
    static var all: ValueKinds { [.string, .number, .bool, .null, .object, .array] }

    /// The kind of the value whose text starts with `byte`; all of them for a byte no value
    /// starts with (the reader then finds the fault).
    @inline(__always)
    init(firstByte byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): self = .string
        case UInt8(ascii: "{"): self = .object
        case UInt8(ascii: "["): self = .array
        case UInt8(ascii: "n"): self = .null
        case UInt8(ascii: "t"), UInt8(ascii: "f"): self = .bool
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): self = .number
        default: self = .all
        }
    }
}

/// What a rule's filter does to a member of a record (the record's own, not deeper), by the
/// member's name as the filter sees it (after the rules before it renamed it).
struct MemberUse {
    /// The kinds of value for which the filter must see the member's tokens: it may change or
    /// drop the member, or what it does depends on the member.
    var tokens: ValueKinds = []
    /// For the other kinds, the member's new name, when the filter renames it...
    var newName: [UInt8]? = nil
    /// ... and, for a container, what the filter does to it and at every depth in it. Nothing
    /// else changes.
    var pass = ContainerPass(gathering: true)
    /// Or: the filter drops the member, name and value, whatever its value (when it need not see
    /// it); the filters after it never see it.
    var drops = false
    /// For a scalar value (of a kind not in `tokens`): the filter's edit of it, made on the text
    /// as the filter makes it on its token (`coerce`, `mapValues` of a member the path selects).
    var edit: TextValueEdit? = nil
    /// For a container of these kinds (not in `tokens`): when empty, it becomes `null`; when not,
    /// it goes by with `pass` (`emptyArrayToNull` of a member the path selects).
    var emptyToNull: ValueKinds = []
    /// When it sees the member's tokens: it passes the member on as one member of the record,
    /// under the name it had (its value perhaps changed), so that the filters after it that do
    /// nothing to that name need not see it (see `doesNothing`). False (the default) when it may
    /// make other members of the record out of it, or change the record around it (a path that
    /// selects the record: `flatten` or `hoist` of one of its members).
    var keepsMember = false
    /// For a filter that renames (`renamesMembers`): it renames no member of the record itself,
    /// so the names of those that go by it without their tokens are no news to it
    /// (`RecordFilter.memberWentBy` is not called).
    var leavesRecordNames = false

    /// A member the filter needs to see when its value is of one of `tokens`' kinds; `keepsMember`
    /// as above.
    init(tokens: ValueKinds = [], keepsMember: Bool = false) {
        self.tokens = tokens
        self.keepsMember = keepsMember
    }

    /// The filter does nothing to the member, whatever its value (after what the filters
    /// before it did to it): it may be set aside while the member goes through the others
    /// (`RecordFilter.aside`).
    var doesNothing: Bool {
        tokens.isEmpty && newName == nil && !drops && pass.counts == 0 && pass.nullingKey == 0 && edit == nil && emptyToNull.isEmpty
    }
}

/// Where a rule's path goes on below some values only through members of some names, at any
/// depth (`PathMatcher.namesLeadingOnAtAnyDepth`: `$..groups[?@.role == 'x']` past `profile`):
/// those values' states, and the step that watches for the names. A container in those states
/// goes by as text, watched (one that holds such a member is given back, and the filters see
/// it: `ContainerPass.watch(_:)`): inside a record as a filter lets it go
/// (`PathCursor.watches`), and as a record's member as the rule's member needs say (`use`).
/// Nothing in a scalar is selected. A class: a cursor holds it by reference, staying small to
/// copy.
final class WatchedNames: Sendable {
    private let states: [PathMatcher.States]
    private let steps: [ContainerPass.NameStep]

    /// Nil when the path has no such states.
    init?(_ matcher: PathMatcher) {
        let found = matcher.namesLeadingOnAtAnyDepth
        guard !found.isEmpty else { return nil }
        states = found.map(\.states)
        steps = found.map { ContainerPass.watching($0.names) }
    }

    /// Adds the watch for a container in `states` to `pass`; false when they are not watched.
    @inline(__always)
    func watch(_ states: PathMatcher.States, into pass: inout ContainerPass) -> Bool {
        for index in self.states.indices where self.states[index] == states {
            pass.watch { steps[index] }
            return true
        }
        return false
    }

    /// The use of a record's member in `states`; nil unless they are watched.
    func use(_ states: PathMatcher.States) -> MemberUse? {
        var use = MemberUse(keepsMember: true)
        return watch(states, into: &use.pass) ? use : nil
    }
}

/// The step an op's filter adds to the pass that copies a container of one kind from the text
/// when its path selects the container, inside a record, with nothing below it (see
/// `RecordFilter.passes`: `renameKeys`' own members renamed, `remove`'s own members dropped,
/// `default`'s member added, `pluck`'s and `hoist`'s member taken). A record's own member of that
/// kind then goes by as text too, copied with the step (see `MemberUse.passing`); the filter
/// sees values of the other kinds.
struct SelectedContainerStep: Sendable {
    /// The kind of container the step works on.
    let kind: ValueKinds
    /// Adds the step to a pass.
    let add: @Sendable (inout ContainerPass) -> Void

    /// The use of a member whose value the step works on: values of its kind go by as text with
    /// the step, the filter sees the others.
    var use: MemberUse { MemberUse.passing(kind, add) }
}

extension MemberUse {
    /// A member whose value, a container of `kind`, goes by as text with what `add` adds to the
    /// pass that copies it; the filter sees values of other kinds, and passes the member on as
    /// one member (`keepsMember`).
    static func passing(_ kind: ValueKinds, _ add: (inout ContainerPass) -> Void) -> MemberUse {
        var use = MemberUse(tokens: ValueKinds.all.subtracting(kind), keepsMember: true)
        add(&use.pass)
        return use
    }
}

/// What a rule's filter does to the members of a record, by name (see `MemberUse`): the same
/// for every record of the collection (the filter's states for a record do not depend on its
/// place), so that a stream asks once per name. When no rule's filter needs to see a member, the
/// writer takes it from the text, past the filters, with what they do to it.
typealias MemberNeeds = @Sendable (RecordToken) -> MemberUse

/// What a rule does to a record's tokens.
enum RecordFilterMaker: Sendable {
    /// Nothing: the rule moves the collection, not what is in records (`wrap`, `unwrap` of the
    /// envelope).
    case unchanged
    /// The filter, made for one thread with the filter it passes its tokens to.
    case filter(@Sendable (_ next: any RecordFilter, _ arena: TokenArena) -> any RecordFilter)
    /// A record needs its tree for this rule.
    case needsTree
}

/// What a filter decided for member names it met before, a small number each, looked up by
/// their hash without allocating: up to `capacity` names (records repeat the same few), each kept
/// in `kept`; later ones are decided each time. A class, so that a look-up copies nothing; one per
/// filter, so one per thread. Not generic: a generic class's metadata is made at its first use,
/// on whatever thread meets it, which takes more stack than a 64 KiB thread has to spare.
final class KnownNames {
    static let capacity = 4096
    let kept = TokenArena()
    /// Open addressing over `entries`, linear probing; -1 marks an empty slot.
    @exclusivity(unchecked) private var slots = [Int32](repeating: -1, count: 2 * KnownNames.capacity)
    @exclusivity(unchecked) private var entries: [(name: RecordToken, value: Int32)] = []

    var isFull: Bool { entries.count >= Self.capacity }

    /// What was decided for `token`'s name, if it was added.
    func find(_ token: RecordToken) -> Int32? {
        var slot = Int(truncatingIfNeeded: token.hash) & (slots.count - 1)
        while slots[slot] >= 0 {
            let entry = entries[Int(slots[slot])]
            if token.isName(entry.name) { return entry.value }
            slot = (slot + 1) & (slots.count - 1)
        }
        return nil
    }

    /// What was decided for `token`'s name, looking first at the name added `guess`-th (records
    /// tend to list their members in one order).
    @inline(__always)
    func find(_ token: RecordToken, guess: Int) -> Int32? {
        if guess < entries.count {
            let entry = entries[guess]
            if token.isName(entry.name) { return entry.value }
        }
        return find(token)
    }

    /// Remembers what was decided for `token`'s name, unless full.
    func add(_ token: RecordToken, _ value: Int32) {
        guard !isFull else { return }
        var slot = Int(truncatingIfNeeded: token.hash) & (slots.count - 1)
        while slots[slot] >= 0 { slot = (slot + 1) & (slots.count - 1) }
        slots[slot] = Int32(entries.count)
        entries.append((RecordToken(name: kept.keep(token.bytes), hash: token.hash, plain: token.flag), value))
    }

    /// Whether `decides` holds for `token`'s name, asking it the first time only.
    @inline(__always)
    func holds(for token: RecordToken, _ decides: (RecordToken) -> Bool) -> Bool {
        if let known = find(token) { return known != 0 }
        let holds = decides(token)
        add(token, holds ? 1 : 0)
        return holds
    }
}

/// Bytes that tokens point to, valid until the record ends: names and strings decoded from
/// escapes, and what filters make. One per thread; its blocks are kept from record to record.
final class TokenArena {
    /// What the filters of the record add to the whole tree's output bound (`Document.grow`), as
    /// the tree counts it or more.
    @exclusivity(unchecked) var growth = 0
    /// The steps of work the filters of the record took beyond reading its text (a filter
    /// selector's evaluations: see `FilterGate`).
    @exclusivity(unchecked) var work = 0
    /// The 1-based number of the rule whose filter removed the record whole (its tokens read and
    /// dropped), or 0.
    @exclusivity(unchecked) var droppedBy = 0
    /// A filter holds the record whole (see `FilterGate`): every member goes to the filters,
    /// whatever their `MemberNeeds` say.
    @exclusivity(unchecked) var holdsRecord = false
    /// The filters that take the tokens of the record's text as they are, but for some members
    /// of the record (see `RecordFilter.recordMembersMade`): each with those members' names.
    @exclusivity(unchecked) var takesText: [(filter: ObjectIdentifier, except: [[UInt8]])] = []
    /// Objects a filter decided on ahead of their tokens, over every record (for tests: see
    /// `StreamSettings.outcome`).
    @exclusivity(unchecked) var readAhead = 0
    /// Of those, elements that then went by as text, no filter taking their tokens (for tests).
    @exclusivity(unchecked) var passedAhead = 0
    /// Of those, objects decided on their members' text alone, without tokens (`MemberComparison`;
    /// for tests).
    @exclusivity(unchecked) var comparedAhead = 0
    /// The text of the record being read, from its first byte, for a filter that looks ahead in
    /// it (see `FilterGate`); empty when it is not at hand.
    @exclusivity(unchecked) var record = UnsafeRawBufferPointer(start: nil, count: 0)
    @exclusivity(unchecked) private var blocks: [UnsafeMutableRawBufferPointer] = []
    @exclusivity(unchecked) private var current = 0
    @exclusivity(unchecked) private var used = 0
    private static let blockBytes = 1 << 16

    /// Empties the arena for the next record.
    func reset() {
        current = 0
        used = 0
    }

    /// A copy of `bytes` that stays put until `reset`.
    func keep(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let space = reserve(bytes.count)
        if let base = bytes.baseAddress, let target = space.baseAddress { target.copyMemory(from: base, byteCount: bytes.count) }
        return UnsafeRawBufferPointer(space)
    }

    /// The bytes of `text`, kept until `reset`.
    func keep(_ text: String) -> UnsafeRawBufferPointer {
        var text = text
        return text.withUTF8 { keep(UnsafeRawBufferPointer($0)) }
    }

    /// Counts what a rule adds, as `Document.grow` does (see `OutputGrowth`).
    func grow(_ added: OutputGrowth) {
        growth = growth.addingClamped(added.bound)
    }

    /// `count` bytes that stay put until `reset`.
    func reserve(_ count: Int) -> UnsafeMutableRawBufferPointer {
        while current < blocks.count {
            if blocks[current].count - used >= count {
                let space = UnsafeMutableRawBufferPointer(rebasing: blocks[current][used..<used + count])
                used += count
                return space
            }
            current += 1
            used = 0
        }
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, Self.blockBytes), alignment: 8)
        blocks.append(block)
        current = blocks.count - 1
        used = count
        return UnsafeMutableRawBufferPointer(rebasing: block[0..<count])
    }

    deinit {
        for block in blocks { block.deallocate() }
    }
}

/// Where a filter stands in a record: for each open container, the states of its path
/// (`PathMatcher`), so that each value's states are known as its first token comes.
struct PathCursor {
    let matcher: PathMatcher
    /// The states of the record's parent (the collection): a record's own come from its key.
    private let parent: PathMatcher.States
    /// Per open container: its states, whether it is an object, the index of its next element,
    /// and its element count when a `LengthGate` counted it (-1 otherwise).
    private var frames: [(states: PathMatcher.States, isObject: Bool, index: Int, count: Int)] = []
    /// The states of the record, until it starts; then of the member whose name came last.
    private var pending: PathMatcher.States = 0

    /// The states of a record that is an element.
    private let element: PathMatcher.States
    /// Where the path goes on, below some values, only through members of some names at any
    /// depth (`$..profile`); nil when nowhere.
    private let watched: WatchedNames?
    /// The verdicts of the path's filters on the child about to be stepped to, which a
    /// `FilterGate` before the filter gives (nil when the path has none).
    private let verdicts: FilterVerdicts?

    /// - Parameter verdicts: required when `matcher` has filters (see `RecordFilterContext.along`).
    init(_ matcher: PathMatcher, parent: PathMatcher.States, verdicts: FilterVerdicts? = nil) {
        // A cursor is one thread's: so are the arrays it reads at every step.
        self.matcher = matcher.ownCopy()
        self.parent = parent
        self.verdicts = verdicts
        element = matcher.child(parent, index: 0)
        watched = WatchedNames(matcher)
    }

    /// Whether a container inside the record whose states are `states` may go by as text,
    /// watched for the names through which alone the path goes on below it, at any depth
    /// (`$..profile`): where none is met, the filter does nothing in it; where one is, the
    /// container takes its tokens (`ContainerPass.watch(_:)`). A record itself takes its
    /// tokens: its members are routed one by one.
    @inline(__always)
    func watches(_ states: PathMatcher.States, into pass: inout ContainerPass) -> Bool {
        guard let watched, !frames.isEmpty else { return false }
        return watched.watch(states, into: &pass)
    }

    /// The verdicts for the step to the next child: as if every filter took it when unknown (a
    /// `peek` before the gate decided; the gate then holds the child, so nothing goes by).
    @inline(__always)
    private var stepVerdicts: PathMatcher.Verdicts { verdicts?.current ?? PathMatcher.anyChild }

    /// Whether the step to the next child (a member whose name comes next, or the next element)
    /// needs the filters' verdicts on it.
    var stepFilters: Bool {
        guard let top = frames.last else { return false }
        return matcher.filters(top.states)
    }

    /// When `token` begins a child (a member's name, or an element) whose step needs the
    /// filters' verdicts: the states of its container; else nil.
    @inline(__always)
    func filterStep(to token: RecordToken) -> PathMatcher.States? {
        guard let top = frames.last, matcher.filters(top.states) else { return nil }
        return (top.isObject ? token.kind == .name : token.startsValue) ? top.states : nil
    }

    /// A record starts: `key` is its member name, or nil for an element (whose index the states
    /// do not depend on: see `RecordFilterContext.recordParent`).
    mutating func start(key: UnsafeRawBufferPointer?) {
        frames.empty()
        if matcher.filters(parent) {
            // A filter tests the records: the gate gave its verdict on this one.
            let verdicts = stepVerdicts
            pending = key.map { matcher.child(parent, name: $0, hash: RecordNames.hash($0), verdicts: verdicts) }
                ?? matcher.child(parent, index: 0, verdicts: verdicts)
        } else {
            pending = key.map { matcher.child(parent, name: $0, hash: RecordNames.hash($0)) } ?? element
        }
    }

    /// Whether a filter tests the records themselves.
    var filtersRecords: Bool { matcher.filters(parent) }

    /// The states of the records' parent (the collection).
    var parentStates: PathMatcher.States { parent }

    /// How deep the token about to be taken lies: 0 for the record, 1 for its members...
    var depth: Int { frames.count }

    /// Follows `token`, and gives the states of the value it starts (0 for other tokens).
    @inline(__always)
    mutating func take(_ token: RecordToken) -> PathMatcher.States {
        switch token.kind {
        case .name:
            if let top = frames.last {
                pending = top.states == 0 ? 0 : matcher.child(top.states, name: token.bytes, hash: token.hash, verdicts: stepVerdicts)
            }
            return 0
        case .objectEnd, .arrayEnd:
            frames.removeLastIfAny()
            return 0
        default:
            let states: PathMatcher.States
            if let top = frames.last, !top.isObject {
                states = top.states == 0 ? 0 : matcher.child(top.states, index: top.index, count: top.count, verdicts: stepVerdicts)
                frames[frames.count - 1].index += 1
            } else {
                states = pending
            }
            if token.opens { frames.append((states, token.kind == .objectStart, 0, token.countedElements)) }
            return states
        }
    }

    /// The states of the value about to start, without following it: an element's as if every
    /// filter took it, unless the gate decided it (see `FilterVerdicts.decided`).
    @inline(__always)
    mutating func peek() -> PathMatcher.States {
        guard let top = frames.last, !top.isObject else { return pending }
        guard top.states != 0 else { return 0 }
        var given = PathMatcher.anyChild
        if let verdicts, verdicts.decided { given = verdicts.current }
        return matcher.child(top.states, index: top.index, count: top.count, verdicts: given)
    }

    /// A value went by without its tokens: an element is counted.
    @inline(__always)
    mutating func skip() {
        if let top = frames.last, !top.isObject { frames[frames.count - 1].index += 1 }
    }

    /// Forgets the container `token` opened, when its tokens are dropped rather than followed.
    mutating func drop(_ token: RecordToken) {
        if token.opens { frames.removeLastIfAny() }
    }

    /// The states of the member whose name was taken last (before its value comes).
    var memberStates: PathMatcher.States { pending }

    /// True when the value whose states are `states` is selected.
    @inline(__always)
    func selects(_ states: PathMatcher.States) -> Bool { states & matcher.selected != 0 }
}

extension Array {
    /// Removes every element, keeping the storage; nothing to do when empty (as a record's
    /// stacks are at its end), which `removeAll(keepingCapacity:)` does not know without a call.
    @inline(__always)
    mutating func empty() {
        if !isEmpty { removeAll(keepingCapacity: true) }
    }

    /// Removes the last element, if any: for the stacks a record's tokens push and pop, where
    /// `popLast` costs a call to generic code on every container's end.
    @inline(__always)
    mutating func removeLastIfAny() {
        if !isEmpty { removeLast() }
    }
}

extension UnsafeRawBufferPointer {
    /// The same bytes as `other`.
    @inline(__always)
    func sameBytes(as other: UnsafeRawBufferPointer) -> Bool {
        guard count == other.count else { return false }
        guard count > 0, let left = baseAddress, let right = other.baseAddress else { return true }
        // Member names are short: eight bytes at a time costs less than a call.
        guard count <= 32 else { return memcmp(left, right, count) == 0 }
        if count >= 8 {
            var offset = 0
            while offset + 8 < count {
                if left.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != right.loadUnaligned(fromByteOffset: offset, as: UInt64.self) {
                    return false
                }
                offset += 8
            }
            // The last eight bytes, overlapping those compared.
            return left.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) == right.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        }
        if count >= 4 {
            // The first four and the last four, overlapping.
            return left.loadUnaligned(as: UInt32.self) == right.loadUnaligned(as: UInt32.self)
                && left.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self) == right.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
        }
        for offset in 0..<count where left.load(fromByteOffset: offset, as: UInt8.self) != right.load(fromByteOffset: offset, as: UInt8.self) {
            return false
        }
        return true
    }
}

/// Drops one value's tokens as they come: a scalar, or a container down to its end.
struct ValueSkipper {
    private(set) var depth = 0
    /// A value is being dropped.
    var active: Bool { depth > 0 }

    /// Starts dropping the value `token` begins.
    mutating func begin(_ token: RecordToken) {
        depth = token.opens ? 1 : 0
    }

    /// Takes a token of the value being dropped.
    mutating func take(_ token: RecordToken) {
        if token.opens { depth += 1 } else if token.closes { depth -= 1 }
    }
}
