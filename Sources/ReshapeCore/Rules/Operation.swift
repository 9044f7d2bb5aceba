/// One op of the rules document: how it reads its params, and what it does to a document.
///
/// Each op lives in its own file under `Ops/`, named for the op.
protocol Operation: Sendable {
    /// The op's name in the rules document.
    static var name: String { get }

    /// Reads the op's params, rejecting wrong types and values.
    init(_ params: inout RuleParams) throws(ReshapeError)

    /// Reshapes the document in place. Errors carry the normalized path of the failing value;
    /// the caller adds the rule's index and op.
    func apply(to document: Document) throws(ReshapeError)

    /// How deep the rule looks into the document, for the raw-value fast path.
    var rawAccess: RawAccess { get }

    // Streaming (see `RecordPlan`, `RecordFastPath`): each op says for itself how it runs record
    // by record; nothing outside `Ops/` asks which op a rule is.

    /// Whether the rule runs per record on the collection `step` describes (the verdict, and its
    /// reason otherwise, which `reshape check` prints), moving `step` as the rule moves the
    /// collection.
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict

    /// Adds the places in the input where the rule suggests the collection of records lies
    /// (`candidates.add(path)` for a rule that selects with a path); false when the rules after
    /// it cannot be followed back to the input.
    func suggestChains(_ candidates: inout RecordPlan.Candidates) -> Bool

    /// Adds what the rule does to a record's text to `builder`, the rule running per record on a
    /// collection of kind `before` (`after`, once it ran); false when a record needs its tree for
    /// this rule.
    func addToFastPath(_ builder: inout RecordFastPath.Builder, collection before: RecordPlan.Kind, after: RecordPlan.Kind) -> Bool

    /// What the rule does to a record's tokens, running per record on the collection `context`
    /// describes (see `RecordFilter`): a filter, nothing (it moves the collection, not what is in
    /// records), or that a record needs its tree for it.
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker

    /// Which members of a record the rule's filter must see (see `MemberNeeds`), on the
    /// collection `context` describes; nil when it must see them all.
    func recordMemberNeeds(_ context: RecordFilterContext) -> MemberNeeds?

    /// The op and what it selects, as `reshape check` names the rule: `remove $[-1]`.
    var summary: String { get }

    /// What the rule works on, as `reshape explain` counts the values it selected: its path, or
    /// `$` for an op that takes the whole document.
    var selects: JSONPath { get }

    /// For tracing values to the input (`SourceTracer`): whether a member named `name` that this
    /// rule adds to an object holds the name that object had as a member (`keyedToArray`'s id).
    func addsParentNameAsMember(_ name: KeyBytes) -> Bool
}

/// An op that selects what it works on with a `path` param.
protocol PathOperation: Operation {
    var path: JSONPath { get }
}

extension Operation {
    /// By default a rule's filter sees every member of a record.
    func recordMemberNeeds(_ context: RecordFilterContext) -> MemberNeeds? { nil }

    /// Most ops add no member that holds a member name.
    func addsParentNameAsMember(_ name: KeyBytes) -> Bool { false }

    /// Most ops have no part in the fused text pass (`RecordFastPath`): their records go through
    /// the record filters, or take a tree.
    func addToFastPath(_ builder: inout RecordFastPath.Builder, collection before: RecordPlan.Kind, after: RecordPlan.Kind) -> Bool {
        false
    }
}

extension PathOperation {
    /// An op that edits what its path selects sees a record's members the path selects or
    /// selects in, and all of them when it selects the record; the others go past its filter.
    func recordMemberNeeds(_ context: RecordFilterContext) -> MemberNeeds? {
        PathMatcher(path, filters: true).flatMap { context.pathNeeds($0) }
    }

    /// The verdict of an op that edits what its path selects: per record when it selects inside
    /// records or records themselves; the whole document when it would change the collection or
    /// the objects above it (`reason` says how).
    func insideRecords(_ step: inout RecordPlan.Step, _ reason: String) -> RecordPlan.Verdict {
        step.along(path) { _, reach in reach.selectsAbove || reach.selectsCollection ? .wholeDocument(reason) : .perRecord }
    }

    /// The collection may lie at any prefix of the member names the path starts with.
    func suggestChains(_ candidates: inout RecordPlan.Candidates) -> Bool {
        candidates.add(path)
        return true
    }

    var summary: String { "\(Self.name) \(path.text)" }

    var selects: JSONPath { path }
}

/// Every op of the rules document: adding an op is adding its file under `Ops/` and its type here.
enum Operations {
    static let all: [any Operation.Type] = [
        Unwrap.self, Wrap.self, KeyedToArray.self, ArrayToKeyed.self, EmptyObjectToNull.self, BlankStringToNull.self,
        ConvertKeys.self, RenameKeys.self, Remove.self, Default.self, Coerce.self, EmptyArrayToNull.self, Keep.self,
        Hoist.self, Pluck.self, Flatten.self, MapValues.self,
    ]

    static func type(named name: String) -> (any Operation.Type)? {
        all.first { $0.name == name }
    }

    static var names: [String] { all.map { $0.name } }
}
