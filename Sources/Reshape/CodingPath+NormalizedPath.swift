import ReshapeCore

extension Array where Element == any CodingKey {
    /// The coding path written as an RFC 9535 normalized path: `$['objects'][3]['status']`.
    ///
    /// Array positions (keys with an `intValue` that `JSONDecoder` names `"Index N"`) become `[N]`;
    /// every other key becomes `['name']` with its `stringValue`. The names are the Swift-side keys:
    /// with a key decoding strategy such as `.convertFromSnakeCase` they are the converted names.
    /// ``ResponseDecoder`` maps them back to the member names of the JSON it decoded; see
    /// ``ResponseError/decoding(path:message:underlying:)``.
    public var normalizedPath: String {
        var path = NormalizedPath()
        for key in self { key.appendNaively(to: &path) }
        return path.text
    }
}

extension CodingKey {
    /// The array index this key stands for when a decoder uses it for an element of an unkeyed
    /// container: `JSONDecoder` names those keys `"Index N"`. Keys of `[Int: V]` dictionaries also
    /// have an `intValue`, but their name is the member name, so they are not indices.
    var elementIndex: Int? {
        guard let index = intValue, stringValue == "Index \(index)" else { return nil }
        return index
    }

    /// Appends this key as its best guess without the document: an index or a member name.
    func appendNaively(to path: inout NormalizedPath) {
        if let index = elementIndex { path.append(index: index) } else { path.append(key: stringValue) }
    }
}
