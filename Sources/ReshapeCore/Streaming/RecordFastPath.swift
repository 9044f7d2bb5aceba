/// Reshaping a record on its text, building no tree: for the rule lists real clients use, whose
/// per-record rules only rename members or replace values (`emptyObjectToNull` and
/// `blankStringToNull` over `$..*`, deep `convertKeys` and `renameKeys` from `$`), with or without
/// `keyedToArray` at the collection (without it, an object collection's records keep their names,
/// which `RecordRunner` writes before each).
///
/// The record is read once, as strictly as the parser reads it, and written as the writer would
/// write its reshaped tree: canonical numbers and strings, each member renamed by every renaming
/// rule in order, `{}` and blank strings as `null`. Anything this does not settle on its own (a
/// duplicate or colliding name, an empty record, a record that has the id member already or is not
/// an object, nesting near the depth limit, a large object) gives up, and the record takes the
/// tree path, which decides exactly as the whole document would.
///
/// A class: a pass hands it to each record and container it copies without copying its arrays.
final class RecordFastPath: Sendable {
    /// `emptyObjectToNull` over `$..*` is among the rules.
    let nullEmptyObjects: Bool
    /// `[]` becomes `null` at any depth (in a container a `RecordFilterChain` copies from the text).
    let nullEmptyArrays: Bool
    /// `blankStringToNull` over `$..*` is among the rules; `trim` if one of them trims.
    let nullBlankStrings: Bool
    let trim: Bool
    /// Deep renamings from `$`, in rule order.
    let renames: [@Sendable (KeyBytes) -> [UInt8]?]
    /// In a container copied from the text: a renaming drops members (`ContainerPass.drop(named:)`).
    let dropsMembers: Bool
    /// In a container copied from the text: the value edits among `renames`, at their places
    /// (nil at a renaming's); empty when there are none (`ContainerPass.edit(named:_:)`).
    let valueEdits: [TextValueEdit?]
    /// In a container copied from the text: a bit per renaming, by its place, that watches
    /// names (`ContainerPass.watch(_:)`); a member it marks stops the copy.
    let watches: UInt64
    /// In a container copied from the text: a renaming renames its own members only
    /// (`ContainerPass.renameOwnMembers(_:)`); a container in it stops the copy (see
    /// `RecordFilterChain.copyAgreed`).
    let ownMembersOnly: Bool
    /// In a container copied from the text, when every renaming watches names and does nothing
    /// else: the hashes (`RecordNames.hash`) of the names watched, which a member's name as
    /// read stops the copy at; `renames` is then empty (and the copy as fast as one that does
    /// nothing to names). Empty otherwise.
    let watchedHashes: [UInt64]
    /// In a container copied from the text, an object with its own members only: the member
    /// its end gains (`ContainerPass.fillOwnMembers(_:)`).
    let filled: Filled
    /// In a container copied from the text: the member taken out of it, or out of its elements
    /// (`ContainerPass.takeMember(_:)`).
    let taking: Taking
    /// For records made by `keyedToArray` at the collection: the id member's name as written
    /// (renamed by the renamings after it; quoted, with its colon), that name's hash, and what
    /// those renamings lengthened it by (for the output bound).
    let idName: (quoted: [UInt8], hash: UInt64, growth: Int)?
    /// `RecordNames.hash(idKey)`: a record member with this hash gives up (it may be the id).
    let idKeyHash: UInt64
    /// The length of `idKey` as the rule names it, for the output bound (see `Document.grow`).
    let idKeyLength: Int
    /// The id value is blank-checked when a `blankStringToNull` comes after `keyedToArray`.
    let idBlankCheck: (trim: Bool, enabled: Bool)

    init(
        nullEmptyObjects: Bool, nullEmptyArrays: Bool = false, nullBlankStrings: Bool, trim: Bool,
        renames: [@Sendable (KeyBytes) -> [UInt8]?], dropsMembers: Bool = false, valueEdits: [TextValueEdit?] = [],
        watches: UInt64 = 0, ownMembersOnly: Bool = false, watchedHashes: [UInt64] = [], filled: Filled = .nothing, taking: Taking = .nothing, idName: (quoted: [UInt8], hash: UInt64, growth: Int)?, idKeyHash: UInt64,
        idKeyLength: Int, idBlankCheck: (trim: Bool, enabled: Bool)
    ) {
        self.nullEmptyObjects = nullEmptyObjects
        self.nullEmptyArrays = nullEmptyArrays
        self.nullBlankStrings = nullBlankStrings
        self.trim = trim
        self.renames = renames
        self.dropsMembers = dropsMembers
        self.valueEdits = valueEdits
        self.watches = watches
        self.ownMembersOnly = ownMembersOnly
        self.watchedHashes = watchedHashes
        self.filled = filled
        self.taking = taking
        self.idName = idName
        self.idKeyHash = idKeyHash
        self.idKeyLength = idKeyLength
        self.idBlankCheck = idBlankCheck
    }

    /// What the rules do to a record's text, gathered rule by rule: each op adds its part
    /// (`Operation.addToFastPath`, in its file under `Ops/`).
    struct Builder {
        fileprivate(set) var nullEmptyObjects = false
        fileprivate(set) var nullBlankStrings = false
        fileprivate(set) var trim = false
        fileprivate(set) var renames: [@Sendable (KeyBytes) -> [UInt8]?] = []
        /// The id member's name, once `keyedToArray` made the collection's records.
        fileprivate(set) var idKey: String? = nil
        fileprivate var renamesAfterKeyed: [@Sendable (KeyBytes) -> [UInt8]?] = []
        fileprivate var blankAfterKeyed: (trim: Bool, enabled: Bool) = (false, false)

        /// `{}` becomes `null`, at any depth.
        mutating func nullEmptyObjectsEverywhere() {
            nullEmptyObjects = true
        }

        /// A blank string (or, with `trim`, one of whitespace only) becomes `null`, at any depth.
        mutating func nullBlankStringsEverywhere(trim: Bool) {
            nullBlankStrings = true
            self.trim = self.trim || trim
            if idKey != nil { blankAfterKeyed = (blankAfterKeyed.trim || trim, true) }
        }

        /// Every member, at any depth, is renamed by `rename` (nil: it stays), after the renamings
        /// added before.
        mutating func renameEverywhere(_ rename: @escaping @Sendable (KeyBytes) -> [UInt8]?) {
            renames.append(rename)
            if idKey != nil { renamesAfterKeyed.append(rename) }
        }

        /// Each member of the object collection becomes a record with its name under `idKey`, in
        /// front; false when records were made so already.
        mutating func makeRecords(idKey: String) -> Bool {
            guard self.idKey == nil else { return false }
            self.idKey = idKey
            return true
        }
    }

    /// The fast path for the rules `0..<route.streamed`, or nil when some rule needs the tree.
    static func make(for operations: [any Operation], route: RecordPlan.Route, kind: RecordPlan.Kind, chain start: [[UInt8]])
        -> RecordFastPath?
    {
        var builder = Builder()
        // The collection as the plan follows it: `keyedToArray` is the collection's own only when
        // the plan says it turns the object collection into an array.
        var step = RecordPlan.Step(chain: start, kind: kind)
        for operation in operations[0..<route.streamed] {
            // The kind only: a copy of the step would copy its chain for every rule (200,000
            // `wrap`s make a chain as long).
            let before = step.kind
            _ = operation.planStep(&step)
            guard operation.addToFastPath(&builder, collection: before, after: step.kind) else { return nil }
        }
        // Without keyedToArray, a keyed collection's records keep their names, which the runner
        // writes (renaming them is planned as whole-document work).
        var idName: (quoted: [UInt8], hash: UInt64, growth: Int)? = nil
        if let idKey = builder.idKey {
            var name = Array(idKey.utf8)
            var growth = 0
            for rename in builder.renamesAfterKeyed {
                if let renamed = name.withUnsafeBytes({ rename($0) }) {
                    growth += max(0, renamed.count - name.count)
                    name = renamed
                }
            }
            idName = Self.idName(name, growth: growth)
        }
        return RecordFastPath(
            nullEmptyObjects: builder.nullEmptyObjects, nullBlankStrings: builder.nullBlankStrings, trim: builder.trim,
            renames: builder.renames, idName: idName,
            idKeyHash: builder.idKey.map { Array($0.utf8).withUnsafeBytes { RecordNames.hash($0) } } ?? 0,
            idKeyLength: builder.idKey?.utf8.count ?? 0, idBlankCheck: builder.blankAfterKeyed)
    }

    /// The name `key` is written as, after every renaming; `growth` gets what each renaming
    /// lengthened it by, as the tree's output bound counts it (see `MemberRenaming`), or more.
    /// True when `scratch` holds a new name. `dropped` is set when a renaming drops the member
    /// (`ContainerPass.dropped`); `scratch` (when true is returned) then holds its name before.
    /// `edits` gets a bit for each value edit that meets the member, by its place in `renames`
    /// (`ContainerPass.edited`).
    /// Only the renamings from the one at `first` on are asked.
    func renamed(
        _ key: KeyBytes, into scratch: inout [UInt8], growth: inout Int, dropped: inout Bool, edits: inout UInt64, from first: Int = 0
    ) -> Bool {
        var changed = false
        for position in first..<max(first, renames.count) {
            let rename = renames[position]
            let before = changed ? scratch.count : key.count
            let current: [UInt8]? = changed ? scratch.withUnsafeBytes { rename($0) } : rename(key)
            if let current {
                if ContainerPass.drops(current) {
                    dropped = true
                    return changed
                }
                if ContainerPass.edits(current) {
                    edits |= 1 << UInt64(position)
                    continue
                }
                growth = growth.addingClamped(OutputGrowth.renamed(from: before, to: current.count).bound)
                scratch = current
                changed = true
            }
        }
        return changed
    }
}

extension RecordFastPath {
    /// What the end of an object copied from the text gains (see `ContainerPass.fillOwnMembers(_:)`).
    enum Filled {
        case nothing
        /// `"name":value` as written (renamed by the renamings after the fill), the hash of the
        /// name as written, and what the member adds to the output bound, its renamings too.
        case member(text: [UInt8], writtenHash: UInt64, growth: Int)
        /// The copy is given back at the object's end, and the filters add the member: two
        /// fills, a renaming after the fill that drops, edits or watches its member, or a
        /// string value where the pass nulls blank strings (which the rules before the fill
        /// may have done, not the ones after).
        case givesBack
    }

    /// What `steps`, the renamings of a pass (`ContainerPass.renames`), add at an object's end:
    /// the member of its fill, written as the renamings after the fill leave its name.
    private static func filled(_ steps: [ContainerPass.NameStep], nullsBlankStrings: Bool) -> Filled {
        let fills = steps.indices.filter { steps[$0].fill != nil }
        guard let position = fills.first, let fill = steps[position].fill else { return .nothing }
        guard fills.count == 1, !(nullsBlankStrings && fill.value.first == UInt8(ascii: "\"")) else { return .givesBack }
        let after = RecordFastPath(
            nullEmptyObjects: false, nullBlankStrings: false, trim: false, renames: steps.map(\.rename), idName: nil, idKeyHash: 0,
            idKeyLength: 0,
            idBlankCheck: (false, false))
        var name: [UInt8] = []
        var growth = fill.growth
        var dropped = false
        var edits: UInt64 = 0
        let changed = fill.name.withUnsafeBytes {
            after.renamed($0, into: &name, growth: &growth, dropped: &dropped, edits: &edits, from: position + 1)
        }
        guard !dropped, edits == 0 else { return .givesBack }
        if !changed { name = fill.name }
        var text = ByteBuffer(capacity: name.count + fill.value.count + 8)
        name.withUnsafeBytes { JSONText.appendQuoted($0, to: &text) }
        text.append(UInt8(ascii: ":"))
        fill.value.withUnsafeBytes { text.append($0) }
        return .member(text: text.toArray(), writtenHash: name.withUnsafeBytes { RecordNames.hash($0) }, growth: growth)
    }

    /// What a container copied from the text becomes when a rule takes a member out of it
    /// (`pluck` of an array's elements, `hoist` of an object; see `ContainerPass.takeMember(_:)`).
    enum Taking {
        case nothing
        case member(TakenMember)
        /// The copy is given back, and the filters decide: two such rules, or a step before or
        /// after the rule's that is not a renaming everywhere (a drop, an edit, a watch, a fill,
        /// one of a container's own members).
        case givesBack

        var takes: Bool {
            if case .nothing = self { false } else { true }
        }
    }

    /// How a member is taken out of objects on the text.
    final class TakenMember: Sendable {
        /// The member's name, as it is and quoted as written.
        let name: [UInt8]
        let quoted: [UInt8]
        /// From each element of an array (`pluck`), or from the object itself (`hoist`).
        let fromElements: Bool
        /// The renamings before the rule, and what the pass nulls: each object's member names
        /// are compared as these leave them, and the values not taken are read with them.
        let before: RecordFastPath
        /// Every renaming of the pass, before the rule and after, and what it nulls: the values
        /// taken are copied with them.
        let values: RecordFastPath
        /// What the op makes of an empty container (see `ContainerPass.EmptyTaken`).
        let empty: ContainerPass.EmptyTaken

        init(
            name: [UInt8], quoted: [UInt8], fromElements: Bool, before: RecordFastPath, values: RecordFastPath,
            empty: ContainerPass.EmptyTaken
        ) {
            self.name = name
            self.quoted = quoted
            self.fromElements = fromElements
            self.before = before
            self.values = values
            self.empty = empty
        }
    }

    /// What `steps`, the renamings of `pass`, make of a container: the member taken out of it,
    /// if one of them takes one.
    private static func taking(_ steps: [ContainerPass.NameStep], _ pass: ContainerPass) -> Taking {
        let takers = steps.indices.filter { steps[$0].taken != nil }
        guard let position = takers.first, let taken = steps[position].taken else { return .nothing }
        guard takers.count == 1, pass.ownMembersCount == 0, !pass.dropsMembers,
            steps.indices.allSatisfy({ $0 == position || steps[$0].onlyRenames })
        else { return .givesBack }
        func copying(_ renames: [@Sendable (KeyBytes) -> [UInt8]?]) -> RecordFastPath {
            RecordFastPath(
                nullEmptyObjects: pass.nullEmptyObjects, nullEmptyArrays: pass.nullEmptyArrays, nullBlankStrings: pass.nullBlankStrings,
                trim: pass.trim, renames: renames, idName: nil, idKeyHash: 0, idKeyLength: 0, idBlankCheck: (false, false))
        }
        var quoted = ByteBuffer(capacity: taken.name.count + 8)
        taken.name.withUnsafeBytes { JSONText.appendQuoted($0, to: &quoted) }
        return .member(
            TakenMember(
                name: taken.name, quoted: quoted.toArray(), fromElements: taken.fromElements, before: copying(steps[..<position].map(\.rename)),
                values: copying(steps.indices.filter { $0 != position }.map { steps[$0].rename }), empty: taken.empty))
    }

    /// What `pass` does to a container copied from the text (no record ids).
    convenience init(_ pass: ContainerPass) {
        let steps = pass.renames ?? []
        if !steps.isEmpty && steps.allSatisfy({ $0.watches && $0.fill == nil && $0.taken == nil }) {
            // Only watches: names are compared by their hashes, none renamed.
            self.init(
                nullEmptyObjects: pass.nullEmptyObjects, nullEmptyArrays: pass.nullEmptyArrays,
                nullBlankStrings: pass.nullBlankStrings, trim: pass.trim, renames: [],
                watchedHashes: steps.flatMap(\.watchedHashes), idName: nil, idKeyHash: 0, idKeyLength: 0,
                idBlankCheck: (false, false))
            return
        }
        self.init(
            nullEmptyObjects: pass.nullEmptyObjects, nullEmptyArrays: pass.nullEmptyArrays, nullBlankStrings: pass.nullBlankStrings,
            trim: pass.trim, renames: pass.renames?.map(\.rename) ?? [], dropsMembers: pass.dropsMembers,
            valueEdits: pass.editsValues ? pass.renames?.map(\.edit) ?? [] : [],
            watches: (pass.renames ?? []).enumerated().reduce(0) { mask, step in
                step.element.watches && step.offset < 64 ? mask | 1 << UInt64(step.offset) : mask
            },
            ownMembersOnly: pass.ownMembersCount > 0,
            filled: Self.filled(steps, nullsBlankStrings: pass.nullBlankStrings),
            taking: Self.taking(steps, pass),
            idName: nil, idKeyHash: 0,
            idKeyLength: 0, idBlankCheck: (false, false))
    }
}

extension RecordFastPath {
    /// `fast`, a pass the filters after `keyedToArray` agreed on for a whole record, copying the
    /// record with its id first as `keyedToArray` makes it (named `idKey`, renamed by the pass's
    /// renamings; a blank id, where the pass nulls blank strings, stops the copy); nil when the
    /// pass does more to names than rename them (a drop, a value edit, a watch: the id member
    /// would meet it too) or renames only a container's own members.
    convenience init?(records fast: RecordFastPath, idKey: [UInt8]) {
        guard fast.idName == nil, !fast.dropsMembers, fast.valueEdits.isEmpty, fast.watches == 0, fast.watchedHashes.isEmpty,
            !fast.ownMembersOnly, !fast.taking.takes
        else { return nil }
        var renamed: [UInt8] = []
        var growth = 0
        var dropped = false
        var edits: UInt64 = 0
        let changed = idKey.withUnsafeBytes { fast.renamed($0, into: &renamed, growth: &growth, dropped: &dropped, edits: &edits) }
        guard !dropped, edits == 0 else { return nil }
        self.init(
            nullEmptyObjects: fast.nullEmptyObjects, nullEmptyArrays: fast.nullEmptyArrays, nullBlankStrings: fast.nullBlankStrings,
            trim: fast.trim, renames: fast.renames, idName: Self.idName(changed ? renamed : idKey, growth: growth),
            idKeyHash: idKey.withUnsafeBytes { RecordNames.hash($0) }, idKeyLength: idKey.count,
            idBlankCheck: (fast.trim, fast.nullBlankStrings))
    }
}

extension RecordFastPath {
    /// `idName` for the id member written `name` (quoted, with its colon), which renamings
    /// lengthened by `growth`.
    static func idName(_ name: [UInt8], growth: Int) -> (quoted: [UInt8], hash: UInt64, growth: Int) {
        var quoted = ByteBuffer(capacity: name.count + 8)
        name.withUnsafeBytes { JSONText.appendQuoted($0, to: &quoted) }
        quoted.append(UInt8(ascii: ":"))
        return (quoted.toArray(), name.withUnsafeBytes { RecordNames.hash($0) }, growth)
    }
}

extension JSONPath {
    /// True for `$..*`: every value below the root.
    var isEveryDescendant: Bool {
        guard segments.count == 1, case .descendant(.wildcard) = segments[0] else { return false }
        return true
    }
}
