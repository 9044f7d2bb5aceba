/// `pluck`: each selected array of objects becomes the array of their members `member`, in order
/// (GitHub's `"labels": [{"name": "bug", ...}]` → `"labels": ["bug"]`). `onMissing` says what an
/// element without the member (or `null`) gives; a selected `null` stays `null`; a selected value
/// that is not an array, or an element that is neither an object nor `null`, is an error. Its
/// walk of the tree and its work on records are `MemberTaking`'s, driven by `edit`.
struct Pluck: MemberTaking {
    static let name = "pluck"
    let path: JSONPath
    let member: String
    let onMissing: OnMissing

    enum OnMissing: String, CaseIterable, Sendable {
        case error, skip, null
    }

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path")
        member = try params.string("member")
        onMissing = try params.choice("onMissing", default: .error)
    }

    /// Looks into the elements of the selected arrays.
    var rawAccess: RawAccess { path.fixedDepth.map { .below($0 + 2) } ?? .anyDepth }

    /// It plucks from arrays, `null` staying; each element an object, or `null` as one without
    /// the member.
    static var selects: SelectedKinds { .arraysOrNull }
    static var elements: SelectedKinds { .objectsOrNull }
    static var takesFrom: ValueKinds { .array }

    /// What a selected value becomes, on either route (see `ValueEdit`).
    static func edit<Values: FilterValues>(_ value: Values.Value, in values: Values, member: TokenName, onMissing: OnMissing)
        throws(ReshapeError) -> ValueEdit<Values.Value>
    {
        if let edit = selects.edit(value, in: values) { return edit }
        var plucked: [Values.Value?] = []
        var index = 0
        var failure: (message: String, index: Int)? = nil
        try values.forEachElement(of: value) { (element) throws(ReshapeError) in
            defer { index += 1 }
            switch elements.verdict(of: ValueKinds(values.kind(of: element))) {
            case .edits:
                let found = try member.bytes.withUnsafeBytesTyped { (name) throws(ReshapeError) in
                    try values.member(name, hash: member.hash, of: element)
                }
                if let found {
                    plucked.append(found)
                    return true
                }
            case .leaves:
                break  // `null`: as if the member were missing.
            case .fails:
                failure = (elements.failure(found: values.described(element)), index)
                return false
            }
            switch onMissing {
            case .error: failure = ("no member \(quoted(String(decoding: member.bytes, as: UTF8.self))) to pluck", index)
            case .skip: break
            case .null: plucked.append(nil)
            }
            return failure == nil
        }
        if let failure { return .fail(failure.message, index: failure.index) }
        return .array(plucked)
    }
}
