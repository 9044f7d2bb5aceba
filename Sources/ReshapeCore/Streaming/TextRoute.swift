/// Small documents reshaped on their text in one pass, on the calling thread: the route an API
/// client's responses take when the document is one collection at the root and every rule runs
/// on the fast path (`RecordFastPath`), e.g. `keyedToArray` + `emptyObjectToNull` + `convertKeys`.
///
/// Such rules leave nothing around the records but the objects that `wrap` and `wrapIn` add,
/// named by the plan's output chain, so the text before and after the records is known when the
/// rules are compiled and no tree is built at all. Anything this does not settle on its own (an
/// empty collection, a record the fast path gives up on, names whose hashes meet, invalid JSON,
/// limits within reach) gives up, and the whole tree decides, errors included.
///
/// A document that is one record, an object, takes the route too when the rules only reach
/// inside records (`emptyObjectToNull`, `blankStringToNull`, deep renamings: a JSON Lines line,
/// a response that is a single user): it is reshaped as the one element of an array would be,
/// which is the same, since `$..*` and renamings from `$` treat the members of the root and of
/// an element alike; only the root itself (`{}`, never selected by `$..*`) differs, and the fast
/// path leaves an empty record to the tree.
final class TextRoute: Sendable {
    /// The route for one kind of collection at the root.
    final class Shape: Sendable {
        let fast: RecordFastPath
        /// The output before the first record and after the last.
        let before: [UInt8]
        let after: [UInt8]
        /// How deep the records are written (the objects above them, plus the collection).
        let outputDepth: Int
        /// Buffers and renamed names kept from call to call.
        let workspaces = TextWorkspace.Pool()

        init(fast: RecordFastPath, before: [UInt8], after: [UInt8], outputDepth: Int) {
            self.fast = fast
            self.before = before
            self.after = after
            self.outputDepth = outputDepth
        }
    }

    let forObject: Shape?
    let forArray: Shape?
    /// For a document that is one object, when the rules leave it where it was (see above).
    let forRecord: Shape?
    /// The number of rules, for the work bound.
    let ruleCount: Int
    /// The names of the objects `wrap` and `wrapIn` add, as they count toward the output bound.
    private let wrapperBytes: Int

    /// The route for `operations` planned as `plan`, or nil when no kind of collection takes it.
    init?(operations: [any Operation], plan: RecordPlan) {
        guard plan.inputChain.isEmpty else { return nil }
        func shape(_ kind: RecordPlan.Kind) -> Shape? {
            let route = plan.route(for: kind)
            guard route.streamed == operations.count, route.outputKind == .array,
                let fast = RecordFastPath.make(for: operations, route: route, kind: kind, chain: [])
            else { return nil }
            var before = ByteBuffer(capacity: 64)
            for name in route.outputChain {
                before.append(UInt8(ascii: "{"))
                name.withUnsafeBytes { JSONText.appendQuoted($0, to: &before) }
                before.append(UInt8(ascii: ":"))
            }
            before.append(UInt8(ascii: "["))
            let after = [UInt8(ascii: "]")] + [UInt8](repeating: UInt8(ascii: "}"), count: route.outputChain.count)
            return Shape(fast: fast, before: before.toArray(), after: after, outputDepth: route.outputChain.count + 1)
        }
        forObject = shape(.object)
        forArray = shape(.array)
        // Records of an array at the root written between a bare "[" and "]": the rules leave
        // the document where it was (no keyedToArray; a wrap undone by an unwrap, if any), so the
        // same pass reshapes a lone record.
        if let array = forArray, array.before == [UInt8(ascii: "[")], array.after == [UInt8(ascii: "]")] {
            forRecord = Shape(fast: array.fast, before: [], after: [], outputDepth: 1)
        } else {
            forRecord = nil
        }
        ruleCount = operations.count
        wrapperBytes = max(forObject?.before.count ?? 0, forArray?.before.count ?? 0)
        guard forObject != nil || forArray != nil else { return nil }
    }

    /// Appends the compact output for `input` to `out`; false, with `out` as it was, when the
    /// whole tree must decide.
    func reshape(_ input: UnsafeRawBufferPointer, limits: ResolvedLimits, into out: inout ByteBuffer) -> Bool {
        guard Self.withinLimits(input.count, limits, ruleCount: ruleCount) else { return false }
        let mark = out.count
        var growth = 0
        guard pass(input, limits: limits, into: &out, growth: &growth) else { return false }
        // The tree bounds its output by the input's size plus what rules add (ids, what renamings
        // lengthen names by, the objects `wrap` and `wrapIn` add: at least 64 bytes per added
        // value), not by what it writes; past that bound it refuses the document, and so the
        // route leaves it to the tree.
        let bound = input.count.addingClamped(growth).addingClamped(Tree.minimumValueBytes * ruleCount)
        guard bound.addingClamped(wrapperBytes) <= limits.maxOutputBytes else {
            out.truncate(to: mark)
            return false
        }
        return true
    }

    private func pass(
        _ input: UnsafeRawBufferPointer, limits: ResolvedLimits, into out: inout ByteBuffer, growth: inout Int
    ) -> Bool {
        guard let opener = input.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) else { return false }
        let isObject = opener == UInt8(ascii: "{")
        guard isObject || opener == UInt8(ascii: "[") else { return false }
        if let shape = isObject ? forObject : forArray {
            let workspace = shape.workspaces.take()
            defer { shape.workspaces.give(workspace) }
            return workspace.reshape(input, shape: shape, isObject: isObject, limits: limits, into: &out, growth: &growth)
        }
        guard isObject, let shape = forRecord else { return false }
        let workspace = shape.workspaces.take()
        defer { shape.workspaces.give(workspace) }
        return workspace.reshapeRecord(input, shape: shape, limits: limits, into: &out, growth: &growth)
    }

    /// True when no limit can be reached on an input of `bytes` bytes: the route counts neither
    /// work nor selections, so it leaves any input that comes near a limit to the tree. A value
    /// takes at least one byte (or two), each rule does a few steps per value, and each record
    /// gains at most its id member, counted as the tree counts an added value.
    static func withinLimits(_ bytes: Int, _ limits: ResolvedLimits, ruleCount: Int) -> Bool {
        let bound = bytes.multipliedClamped(by: 64).addingClamped(4096)
        return bound < limits.maxOutputBytes && bound < limits.maxSelected
            && bytes.multipliedClamped(by: 16 * (ruleCount + 1)).addingClamped(4096) < limits.maxWork
    }
}
