/// Capturing an object or array as a raw value: checked as strictly as the tree parser checks it,
/// and written in canonical form (what the writer would write for its tree) in the same pass.
extension JSONParser {
    /// Objects with more members than this are parsed as trees, whose hash tables find duplicate
    /// names in constant time; here they are compared one by one.
    static let rawCaptureMemberLimit = 32

    /// Captures the container starting at `index` into `captureBuffer` (see `RawValue.startContainer`) and moves
    /// past it. Returns false, with `index` anywhere, when the container cannot be captured: it is
    /// not valid JSON, has a duplicate member name, nests too deep or has too many members. The
    /// caller then parses this container as a tree, which decides on duplicates and reports errors.
    mutating func captureRawValue() -> Bool {
        RawValue.startContainer(in: &captureBuffer)
        capturedKeys.removeAll(keepingCapacity: true)
        // Per open container: is it an object, where its member names start in `capturedKeys`.
        var frames: [(isObject: Bool, firstKey: Int)] = []
        let baseDepth = rawDepth ?? 0
        while true {
            // A value starts here.
            skipWhitespace()
            guard index < text.count else { return false }
            switch text[index] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let isObject = text[index] == UInt8(ascii: "{")
                guard baseDepth + frames.count < maxDepth else { return false }
                captureBuffer.append(text[index])
                index += 1
                frames.append((isObject, capturedKeys.count))
                skipWhitespace()
                guard index < text.count else { return false }
                if text[index] == UInt8(ascii: isObject ? "}" : "]") {
                    captureBuffer.append(text[index])
                    index += 1
                    frames.removeLast()
                } else {
                    if isObject, !captureMemberName(firstKey: capturedKeys.count) { return false }
                    continue
                }
            case UInt8(ascii: "\""):
                guard captureString() != nil else { return false }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard case .success(let (literal, end)) = NumberLiteral.scan(text, from: index) else { return false }
                literal.appendCanonical(to: &captureBuffer)
                index = end
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                guard let word = skipLiteral() else { return false }
                captureBuffer.append(word)
            default:
                return false
            }
            // The value is complete: the next member or element, or the end of containers.
            while let top = frames.last {
                skipWhitespace()
                guard index < text.count else { return false }
                let next = text[index]
                if next == UInt8(ascii: ",") {
                    captureBuffer.append(next)
                    index += 1
                    if top.isObject, !captureMemberName(firstKey: top.firstKey) { return false }
                    break
                }
                guard next == UInt8(ascii: top.isObject ? "}" : "]") else { return false }
                captureBuffer.append(next)
                index += 1
                capturedKeys.removeSubrange(top.firstKey...)
                frames.removeLast()
            }
            if frames.isEmpty { return true }
        }
    }

    /// Captures `"name" :` of the object whose names start at `firstKey` in `capturedKeys`,
    /// refusing a duplicate (even when duplicates are allowed: the tree decides which one wins).
    private mutating func captureMemberName(firstKey: Int) -> Bool {
        skipWhitespace()
        guard index < text.count, text[index] == UInt8(ascii: "\""), let name = captureString() else { return false }
        guard capturedKeys.count - firstKey < Self.rawCaptureMemberLimit else { return false }
        // Canonical text is unique per string, so equal names have equal bytes.
        let bytes = captureBuffer.bytes
        for earlier in capturedKeys[firstKey...] where bytes[earlier].elementsEqual(bytes[name]) {
            return false
        }
        capturedKeys.append(name)
        skipWhitespace()
        guard index < text.count, text[index] == UInt8(ascii: ":") else { return false }
        captureBuffer.append(UInt8(ascii: ":"))
        index += 1
        return true
    }

    /// Captures a string in canonical form; returns where it lies in `captureBuffer`.
    private mutating func captureString() -> Range<Int>? {
        let start = captureBuffer.count
        guard let span = try? scanString() else { return nil }
        if span.hasEscapes {
            valueBuffer.removeAll()
            Self.decodeEscapes(text, span, into: &valueBuffer)
            JSONText.appendQuoted(valueBuffer.bytes, to: &captureBuffer)
        } else {
            // Validated: no quote, backslash or control character, so this is already canonical.
            captureBuffer.append(UInt8(ascii: "\""))
            captureBuffer.append(UnsafeRawBufferPointer(rebasing: text[span.start..<span.end]))
            captureBuffer.append(UInt8(ascii: "\""))
        }
        return start..<captureBuffer.count
    }
}
