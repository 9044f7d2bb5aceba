internal import CJansson

/// A value as JSON text for people, shortened as error messages shorten text: at most `limit`
/// characters, then `…`. Containers are walked iteratively and left as soon as the text is long
/// enough: a preview of a whole document writes its first members only (an object's names are
/// listed once, the first few kept).
enum ValuePreview {
    /// A scalar's JSON text, as the writer writes it.
    private static func scalar(_ node: Node) -> [UInt8] {
        var buffer = ByteBuffer(capacity: 16)
        do {
            _ = try JSONWriter.append(node, to: &buffer, pretty: false, maxDepth: Limits.defaultMaxDepth)
        } catch {
            return Array("…".utf8)
        }
        return buffer.withBytes { Array($0) }
    }

    static func text(_ node: Node, limit: Int = 60) -> String {
        var out: [UInt8] = []
        // Each frame: a container and the index of its next child.
        var stack: [(node: Node, next: Int, keys: [[UInt8]]?)] = []
        func open(_ value: Node) {
            if value.isObject {
                out.append(UInt8(ascii: "{"))
                var keys: [[UInt8]] = []
                var remaining = limit
                value.forEachStoredMember { key, _ in
                    if remaining > 0 { keys.append(Array(key)) }
                    remaining -= key.count + 3
                }
                stack.append((value, 0, keys))
            } else if value.isArray {
                out.append(UInt8(ascii: "["))
                stack.append((value, 0, nil))
            } else {
                out.append(contentsOf: scalar(value))
            }
        }
        open(node)
        while let top = stack.last, out.count <= limit * 4 {
            let index = stack.count - 1
            if let keys = top.keys {
                if top.next >= top.node.objectCount || top.next >= keys.count {
                    if top.next < top.node.objectCount { break }  // more members than were listed: cut
                    out.append(UInt8(ascii: "}"))
                    stack.removeLast()
                    continue
                }
                if top.next > 0 { out.append(UInt8(ascii: ",")) }
                let key = keys[top.next]
                stack[index].next += 1
                if let name = key.withUnsafeBytes({ try? Make.string($0) }) {
                    out.append(contentsOf: scalar(name))
                    Make.release(name)
                }
                out.append(UInt8(ascii: ":"))
                let child = key.withUnsafeBytes { top.node.storedMember($0) }
                if let child { open(child) } else { out.append(contentsOf: Array("null".utf8)) }
            } else {
                if top.next >= top.node.arrayCount {
                    out.append(UInt8(ascii: "]"))
                    stack.removeLast()
                    continue
                }
                if top.next > 0 { out.append(UInt8(ascii: ",")) }
                stack[index].next += 1
                if let child = top.node.storedElement(top.next) { open(child) }
            }
        }
        let text = String(decoding: out, as: UTF8.self)
        let scalars = text.unicodeScalars
        guard scalars.count > limit || !stack.isEmpty else { return text }
        var shortened = String.UnicodeScalarView()
        shortened.append(contentsOf: scalars.prefix(limit))
        return String(shortened) + "…"
    }
}

/// Whether two values are the same JSON: the same type, members in the same order with the same
/// names, the same elements, equal scalars (numbers of the same kind by value). Unlike jansson's
/// `json_equal`, a `null` or boolean node of the tracer's own equals jansson's, and member order
/// counts. Iterative, so depth does not matter.
enum SameValue {
    static func holds(_ first: Node, _ second: Node) -> Bool {
        var pending: [(Node, Node)] = [(first, second)]
        while let (one, other) = pending.popLast() {
            if one == other { continue }
            guard one.pointee.type == other.pointee.type else { return false }
            if one.isObject {
                guard one.objectCount == other.objectCount else { return false }
                var names: [KeyBytes] = []
                var values: [Node] = []
                one.forEachStoredMember { name, value in
                    names.append(name)
                    values.append(value)
                }
                var index = 0
                var same = true
                other.forEachStoredMember { name, value in
                    guard same, index < names.count, names[index].elementsEqual(name) else {
                        same = false
                        return
                    }
                    pending.append((values[index], value))
                    index += 1
                }
                guard same else { return false }
            } else if one.isArray {
                guard one.arrayCount == other.arrayCount else { return false }
                for index in 0..<one.arrayCount {
                    guard let left = one.storedElement(index), let right = other.storedElement(index) else { return false }
                    pending.append((left, right))
                }
            } else if one.isNull || one.pointee.type == JSON_TRUE || one.pointee.type == JSON_FALSE {
                continue
            } else if json_equal(one, other) == 0 {
                return false
            }
        }
        return true
    }
}
