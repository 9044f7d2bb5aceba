/// `wrap`: the document becomes `{key: document}`.
struct Wrap: Operation {
    static let name = "wrap"
    let key: String

    init(_ params: inout RuleParams) throws(ReshapeError) {
        key = try params.string("key")
    }

    /// Looks at nothing; the document goes one level down.
    var rawAccess: RawAccess { .below(0, rootShift: -1) }

    func apply(to document: Document) throws(ReshapeError) {
        try document.charge(1)
        try document.grow(values: 1, bytes: key.utf8.count + 4)
        let object = try Make.object()
        do throws(ReshapeError) {
            try Make.set(object, key, Make.retain(document.root))
        } catch {
            Make.release(object)
            throw error
        }
        document.replaceRoot(with: object)
    }
}
