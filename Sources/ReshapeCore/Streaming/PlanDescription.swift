/// What `reshape check` says about speed: where the records are, and for each rule whether it runs
/// per record (streaming, on every core) or needs the whole document, and why.
extension Rules {
    /// One line per fact, for people: the collection, then each rule.
    ///
    /// ```
    /// records: the members of the object at $, or the elements of the array there
    /// rule 1 (keyedToArray $) runs per record
    /// rule 2 (remove $[-1]) needs the whole document: negative index into the collection
    /// ```
    public var executionPlan: [String] {
        let object = lines(for: plan.forObject)
        let array = lines(for: plan.forArray)
        var location = NormalizedPath()
        for name in plan.inputChain { location.append(key: String(decoding: name, as: UTF8.self)) }
        let at = location.text
        if object == array {
            return ["records: the members of the object at \(at), or the elements of the array there"] + object
        }
        return ["records, when \(at) is an object: its members"] + object.map { "  " + $0 }
            + ["records, when \(at) is an array: its elements"] + array.map { "  " + $0 }
    }

    private func lines(for route: RecordPlan.Route) -> [String] {
        operations.indices.map { offset in
            let rule = "rule \(offset + 1) (\(operations[offset].summary))"
            if offset < route.streamed { return "\(rule) runs per record" }
            if offset == route.streamed { return "\(rule) needs the whole document: \(route.reason ?? "")" }
            return "\(rule) runs on the whole document, after rule \(route.streamed + 1)"
        }
    }
}
