/// `pluck`: each selected array of objects becomes the array of their members `member`, in order
/// (GitHub's `"labels": [{"name": "bug", ...}]` → `"labels": ["bug"]`). `onMissing` says what an
/// element without the member (or `null`) gives; a selected `null` stays `null`; a selected value
/// that is not an array, or an element that is neither an object nor `null`, is an error.
struct Pluck: PathOperation {
    static let name = "pluck"
    let path: JSONPath
    let member: String
    let onMissing: OnMissing

    enum OnMissing: String, CaseIterable {
        case error, skip, null
    }

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path")
        member = try params.string("member")
        onMissing = try params.choice("onMissing", default: .error)
    }

    /// Looks into the elements of the selected arrays.
    var rawAccess: RawAccess { path.fixedDepth.map { .below($0 + 2) } ?? .anyDepth }

    func apply(to document: Document) throws(ReshapeError) {
        let selection = try Selection(path, in: document)
        defer { selection.recycle() }
        // Deepest first: an array inside an element is plucked before the element is taken apart.
        for match in try selection.editOrder() {
            let array = selection.node(match)
            if array.isNull { continue }
            guard array.isArray else {
                throw ReshapeError(.ruleFailed, "expected an array, found \(array.kind.described)", path: selection.path(of: match))
            }
            let count = array.arrayCount
            try document.charge(count.addingClamped(1))
            let plucked = try Make.array()
            do throws(ReshapeError) {
                for index in 0..<count {
                    guard let element = try array.element(index) else { continue }
                    var value: Node? = nil
                    if element.isObject {
                        value = try member.withUTF8Bytes { (bytes) throws(ReshapeError) in element.storedMember(bytes) }
                    } else if !element.isNull {
                        throw ReshapeError(
                            .ruleFailed, "expected an object, found \(element.kind.described)", path: selection.path(of: match, .index(index)))
                    }
                    if let value {
                        try Make.append(plucked, Make.retain(value))
                        continue
                    }
                    switch onMissing {
                    case .error:
                        throw ReshapeError(.ruleFailed, "no member \(quoted(member)) to pluck", path: selection.path(of: match, .index(index)))
                    case .skip:
                        continue
                    case .null:
                        try Make.append(plucked, Make.null())
                    }
                }
            } catch {
                Make.release(plucked)
                throw error
            }
            try selection.replace(match, with: plucked)
        }
    }
}

// MARK: Streaming (see `RecordPlan`, `RecordFilter`)

extension Pluck {
    /// Per record when it plucks arrays inside records; the collection and the objects above it
    /// would change what holds the records.
    func planStep(_ step: inout RecordPlan.Step) -> RecordPlan.Verdict {
        insideRecords(&step, "replaces the collection or its envelope")
    }

    /// On a record's tokens: a selected array is held until its end, then the array of its
    /// elements' members is passed on instead.
    func recordFilter(_ context: RecordFilterContext) -> RecordFilterMaker {
        guard let matcher = PathMatcher(path, filters: true), let parent = context.recordParent(matcher) else { return .needsTree }
        let member = TokenName(self.member)
        let onMissing = self.onMissing
        return RecordFilterContext.along(matcher, parent: parent) { cursor, next, _ in
            // The plucked array's tokens, the thread's buffer reused from value to value.
            let made = TokenBuffer()
            return ValueHolding(cursor: cursor, next: next) { tokens in
                let first = tokens[tokens.startIndex]
                if first.kind == .null { return tokens }
                guard first.kind == .arrayStart else { return nil }
                made.tokens.removeAll(keepingCapacity: true)
                made.tokens.append(.arrayStart)
                for element in ValueHolding.elements(of: tokens) {
                    let start = tokens[element.lowerBound]
                    guard start.kind == .objectStart || start.kind == .null else { return nil }
                    let value = start.kind == .objectStart ? member.value(in: tokens[element]) : nil
                    if let value {
                        made.tokens += tokens[value]
                        continue
                    }
                    switch onMissing {
                    case .error: return nil
                    case .skip: continue
                    case .null: made.tokens.append(.null)
                    }
                }
                made.tokens.append(.arrayEnd)
                return made.tokens[...]
            }
        }
    }
}
