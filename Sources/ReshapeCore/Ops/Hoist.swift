/// `hoist`: each selected object becomes the value of its member `member` (WordPress's
/// `"title": {"rendered": "x"}` → `"title": "x"`). `onMissing` says what an object without the
/// member becomes; a selected `null` stays `null`; any other value is an error. Its walk of the
/// tree and its work on records are `MemberTaking`'s, driven by `edit`.
struct Hoist: MemberTaking {
    static let name = "hoist"
    let path: JSONPath
    let member: String
    let onMissing: OnMissing

    enum OnMissing: String, CaseIterable, Sendable {
        case error, null, keep
    }

    init(_ params: inout RuleParams) throws(ReshapeError) {
        path = try params.path("path")
        member = try params.string("member")
        onMissing = try params.choice("onMissing", default: .error)
    }

    /// Looks at the selected values and takes their member out.
    var rawAccess: RawAccess { .matches(of: path) }

    /// It takes the member out of objects; `null` stays.
    static var selects: SelectedKinds { .objectsOrNull }
    static var takesFrom: ValueKinds { .object }

    /// What a selected value becomes, on either route (see `ValueEdit`).
    static func edit<Values: FilterValues>(_ value: Values.Value, in values: Values, member: TokenName, onMissing: OnMissing)
        throws(ReshapeError) -> ValueEdit<Values.Value>
    {
        if let edit = selects.edit(value, in: values) { return edit }
        if let found = try member.bytes.withUnsafeBytesTyped({ (name) throws(ReshapeError) in try values.member(name, hash: member.hash, of: value) }) {
            return .value(found)
        }
        switch onMissing {
        case .error: return .fail("no member \(quoted(String(decoding: member.bytes, as: UTF8.self))) to hoist")
        case .null: return .null
        case .keep: return .keep
        }
    }
}
