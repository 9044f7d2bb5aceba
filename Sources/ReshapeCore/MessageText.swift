/// How error messages show text that comes from input or rules: names, values, ops and paths.
///
/// A message is one line that is safe to print to a terminal or a log: every control character
/// (C0, DEL, C1), line and paragraph separator and bidirectional formatting character is written as
/// an escape, and long text is shortened with `…`. Input cannot start a new log line, move the
/// cursor, recolor a terminal or reorder what a reader sees.
package enum MessageText {
    /// `text` with unsafe scalars escaped (`\n`, `\t`, `\r`, `\"`, `\\`, `\uXXXX`), cut after
    /// `limit` scalars with `…`.
    package static func escaped(_ text: String, limit: Int = .max, escapingQuote: Bool = false) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit {
                result += "…"
                break
            }
            append(scalar, to: &result, escapingQuote: escapingQuote)
            count += 1
        }
        return result
    }

    /// Whether a scalar must not appear as itself in a message.
    package static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F: true  // C0, DEL, C1 (0x9B is CSI on some terminals)
        case 0x2028, 0x2029: true  // line and paragraph separators
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // bidirectional formatting
        default: false
        }
    }

    private static func append(_ scalar: Unicode.Scalar, to result: inout String, escapingQuote: Bool) {
        switch scalar {
        case "\"" where escapingQuote: result += "\\\""
        case "\\" where escapingQuote: result += "\\\\"
        case "\n": result += "\\n"
        case "\t": result += "\\t"
        case "\r": result += "\\r"
        default:
            if isUnsafe(scalar) {
                result += "\\u" + hex(scalar.value, width: 4)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
    }

    /// A whole line made safe: anything unsafe that a message still holds is escaped.
    package static func line(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        return escaped(text)
    }

    /// A normalized path as a message shows it: unsafe scalars escaped, each member name cut after
    /// 60 characters (an escape counts as one), and a path of more than 40 steps cut in the middle
    /// (`$[0][0]…[0]`). The error's `path` keeps the whole path.
    package static func path(_ path: String, nameLimit: Int = 60, stepLimit: Int = 40) -> String {
        let scalars = Array(path.unicodeScalars)
        var steps: [String] = []
        var index = 0
        while index < scalars.count {
            var step = ""
            if scalars[index] == "[", index + 1 < scalars.count, scalars[index + 1] == "'" {
                // ['name']: one unit per scalar or escape sequence, up to the closing quote.
                var units = 0
                var cut = false
                index += 2
                step = "['"
                while index < scalars.count, scalars[index] != "'" {
                    var length = 1
                    if scalars[index] == "\\", index + 1 < scalars.count {
                        length = scalars[index + 1] == "u" ? 6 : 2
                    }
                    let end = min(index + length, scalars.count)
                    if units < nameLimit {
                        for scalar in scalars[index..<end] { append(scalar, to: &step, escapingQuote: false) }
                    } else {
                        cut = true
                    }
                    units += 1
                    index = end
                }
                step += cut ? "…']" : "']"
                index += 2  // past "']"
            } else {
                // "$" or [n]: one scalar, or up to "]".
                repeat {
                    append(scalars[index], to: &step, escapingQuote: false)
                    index += 1
                } while index < scalars.count && scalars[index - 1] != "$" && scalars[index - 1] != "]"
            }
            steps.append(step)
        }
        guard steps.count > stepLimit + 1 else { return steps.joined() }
        let half = stepLimit / 2
        return (steps[...half] + ["…"] + steps[(steps.count - half)...]).joined()
    }
}

/// A string in double quotes for messages, with quotes, backslashes and unsafe characters escaped
/// and text longer than `limit` scalars shortened with `…`.
func quoted(_ text: String, limit: Int = 60) -> String {
    "\"" + MessageText.escaped(text, limit: limit, escapingQuote: true) + "\""
}

/// Uppercase hexadecimal, zero-padded.
func hex(_ value: UInt32, width: Int) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}
