import CReshapeABI
import ReshapeCore

// The C API: each function is declared and documented in include/reshape.h, which is the
// reference. These are thin: check arguments, call the engine, map errors to statuses. Nothing
// here may trap, since a trap would kill the host process.
//
// Parameters and results are declared with the header's own C types (size_t, reshape_status,
// reshape_rules_const_ptr from handles.h...), not merely types of the same size: the header swiftc
// generates for this module then prints each function as the header declares it, and
// Tests/c/check_signatures.sh compiles the two side by side, so a drifted signature fails the build
// of that test instead of corrupting arguments at run time.

@_cdecl("reshape_version")
public func reshapeVersion() -> UnsafePointer<CChar> {
    versionCString
}

@_cdecl("reshape_version_number")
public func reshapeVersionNumber() -> CUnsignedInt {
    CUnsignedInt(clamping: ReshapeVersion.number)
}

@_cdecl("reshape_status_name")
public func reshapeStatusName(_ status: CInt) -> UnsafePointer<CChar> {
    StatusNames.name(of: status)
}

@_cdecl("reshape_rules_new")
public func reshapeRulesNew(
    _ spec: UnsafePointer<CChar>?, _ specLength: size_t, _ out: UnsafeMutablePointer<reshape_rules_ptr?>?,
    _ err: UnsafeMutablePointer<reshape_error>?
) -> reshape_status {
    compileRules(spec, specLength, .default, out, err)
}

@_cdecl("reshape_rules_new_with_limits")
public func reshapeRulesNewWithLimits(
    _ spec: UnsafePointer<CChar>?, _ specLength: size_t, _ limits: UnsafePointer<reshape_limits>?,
    _ out: UnsafeMutablePointer<reshape_rules_ptr?>?, _ err: UnsafeMutablePointer<reshape_error>?
) -> reshape_status {
    guard let limits else { return compileRules(spec, specLength, .default, out, err) }
    switch LimitsConversion.limits(from: limits) {
    case .success(let converted): return compileRules(spec, specLength, converted, out, err)
    case .failure(let error): return report(error, to: err)
    }
}

private func compileRules(
    _ spec: UnsafePointer<CChar>?, _ specLength: Int, _ limits: Limits, _ out: UnsafeMutablePointer<reshape_rules_ptr?>?,
    _ err: UnsafeMutablePointer<reshape_error>?
) -> reshape_status {
    guard let spec else { return report(.init(.invalidArgument, "spec must not be NULL"), to: err) }
    // A size_t beyond Int.max arrives negative: no buffer is that large.
    guard specLength >= 0 else { return report(.init(.invalidArgument, "spec_len is larger than any buffer"), to: err) }
    guard let out else { return report(.init(.invalidArgument, "out must not be NULL"), to: err) }
    do throws(ReshapeError) {
        let rules = try Rules(json: UnsafeRawBufferPointer(start: spec, count: specLength), limits: limits)
        out.pointee = RulesHandle.retain(rules)
        return succeed(err)
    } catch {
        return report(error, to: err)
    }
}

@_cdecl("reshape_rules_free")
public func reshapeRulesFree(_ rules: reshape_rules_ptr?) {
    RulesHandle.release(rules)
}

@_cdecl("reshape_rules_count")
public func reshapeRulesCount(_ rules: reshape_rules_const_ptr?) -> size_t {
    RulesHandle.handle(rules)?.ops.count ?? 0
}

@_cdecl("reshape_rules_op")
public func reshapeRulesOp(_ rules: reshape_rules_const_ptr?, _ index: size_t) -> UnsafePointer<CChar>? {
    guard let ops = RulesHandle.handle(rules)?.ops else { return nil }
    // An index beyond Int.max arrives negative: past the end like any other.
    guard index >= 0, index < ops.count else { return nil }
    return ops[index]
}

@_cdecl("reshape_rules_plan")
public func reshapeRulesPlan(_ rules: reshape_rules_const_ptr?) -> UnsafeMutablePointer<CChar>? {
    guard let rules = RulesHandle.rules(rules) else { return nil }
    var text = ""
    for line in rules.executionPlan {
        text += line
        text += "\n"
    }
    // Freed by reshape_free (deallocate): allocated the same way, NUL-terminated.
    return text.withUTF8 { (bytes) -> UnsafeMutablePointer<CChar> in
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        if let base = bytes.baseAddress { UnsafeMutableRawPointer(copy).copyMemory(from: base, byteCount: bytes.count) }
        copy[bytes.count] = 0
        return copy
    }
}

/// The compiled rules and the input of `reshape_apply` and `reshape_apply_into`, checked in the
/// order the header documents; a missing one is `invalid_argument`.
private func applyArguments(
    _ rules: reshape_rules_const_ptr?, _ input: UnsafePointer<CChar>?, _ inputLength: size_t
) throws(ReshapeError) -> (rules: Rules, input: UnsafeRawBufferPointer) {
    guard let handle = RulesHandle.handle(rules) else { throw ReshapeError(.invalidArgument, "rules must not be NULL") }
    guard let input else { throw ReshapeError(.invalidArgument, "input must not be NULL") }
    // A size_t beyond Int.max arrives negative: no buffer is that large.
    guard inputLength >= 0 else { throw ReshapeError(.invalidArgument, "input_len is larger than any buffer") }
    return (handle.rules, UnsafeRawBufferPointer(start: input, count: inputLength))
}

@_cdecl("reshape_apply")
public func reshapeApply(
    _ rules: reshape_rules_const_ptr?, _ input: UnsafePointer<CChar>?, _ inputLength: size_t, _ flags: UInt32,
    _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<size_t>?,
    _ err: UnsafeMutablePointer<reshape_error>?
) -> reshape_status {
    do throws(ReshapeError) {
        let (compiled, text) = try applyArguments(rules, input, inputLength)
        guard let out else { throw ReshapeError(.invalidArgument, "out must not be NULL") }
        let buffer = try compiled.applyTakingBuffer(text, options: ApplyOptions(rawValue: flags))
        out.pointee = UnsafeMutableRawPointer(buffer.pointer).assumingMemoryBound(to: CChar.self)
        outLength?.pointee = buffer.count
        return succeed(err)
    } catch {
        return report(error, to: err)
    }
}

@_cdecl("reshape_trace")
public func reshapeTrace(
    _ rules: reshape_rules_const_ptr?, _ input: UnsafePointer<CChar>?, _ inputLength: size_t, _ flags: UInt32,
    _ path: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ outLength: UnsafeMutablePointer<size_t>?, _ err: UnsafeMutablePointer<reshape_error>?
) -> reshape_status {
    handingOverJSON(to: out, length: outLength, err) { () throws(ReshapeError) in
        let (compiled, text) = try applyArguments(rules, input, inputLength)
        guard let path else { throw ReshapeError(.invalidArgument, "path must not be NULL") }
        return try compiled.source(of: String(cString: path), in: Array(text), options: ApplyOptions(rawValue: flags)).json.json()
    }
}

@_cdecl("reshape_explain")
public func reshapeExplain(
    _ rules: reshape_rules_const_ptr?, _ input: UnsafePointer<CChar>?, _ inputLength: size_t, _ flags: UInt32,
    _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<size_t>?,
    _ err: UnsafeMutablePointer<reshape_error>?
) -> reshape_status {
    handingOverJSON(to: out, length: outLength, err) { () throws(ReshapeError) in
        let (compiled, text) = try applyArguments(rules, input, inputLength)
        return try compiled.explain(text, options: ApplyOptions(rawValue: flags)).json.json()
    }
}

@_cdecl("reshape_apply_into")
public func reshapeApplyInto(
    _ rules: reshape_rules_const_ptr?, _ input: UnsafePointer<CChar>?, _ inputLength: size_t, _ flags: CUnsignedInt,
    _ buffer: UnsafeMutablePointer<CChar>?, _ capacity: size_t, _ outLength: UnsafeMutablePointer<size_t>?,
    _ err: UnsafeMutablePointer<reshape_error>?
) -> reshape_status {
    do throws(ReshapeError) {
        let (compiled, text) = try applyArguments(rules, input, inputLength)
        guard let outLength else { throw ReshapeError(.invalidArgument, "out_len must not be NULL") }
        guard buffer != nil || capacity == 0 else {
            throw ReshapeError(.invalidArgument, "buf must not be NULL when buf_cap is not 0")
        }
        guard capacity >= 0 else { throw ReshapeError(.invalidArgument, "buf_cap is larger than any buffer") }
        // Made whole in the engine's own buffer, then copied: the caller's buffer must stay
        // untouched unless the output fits, and the engine knows the size only once it is done
        // (its routes write as they go, and may fail or give up halfway).
        let output = try compiled.applyTakingBuffer(text, options: ApplyOptions(rawValue: flags))
        defer { output.pointer.deallocate() }
        guard output.count <= capacity else {
            outLength.pointee = output.count
            return reportBufferTooSmall(needed: output.count, capacity: capacity, to: err)
        }
        if let buffer, output.count > 0 {
            UnsafeMutableRawPointer(buffer).copyMemory(from: output.pointer, byteCount: output.count)
        }
        outLength.pointee = output.count
        return succeed(err)
    } catch {
        return report(error, to: err)
    }
}

@_cdecl("reshape_apply_cb")
public func reshapeApplyCB(
    _ rules: reshape_rules_const_ptr?, _ input: UnsafePointer<CChar>?, _ inputLength: size_t, _ flags: CUnsignedInt,
    _ write: reshape_write_fn?, _ data: UnsafeMutableRawPointer?, _ err: UnsafeMutablePointer<reshape_error>?
) -> reshape_status {
    do throws(ReshapeError) {
        let (compiled, text) = try applyArguments(rules, input, inputLength)
        guard let write else { throw ReshapeError(.invalidArgument, "write must not be NULL") }
        try compiled.apply(to: text, options: ApplyOptions(rawValue: flags)) { piece in
            guard let base = piece.baseAddress else { return 0 }
            return write(base.assumingMemoryBound(to: CChar.self), piece.count, data)
        }
        return succeed(err)
    } catch {
        return report(error, to: err)
    }
}

@_cdecl("reshape_apply_with")
public func reshapeApplyWith(
    _ rules: reshape_rules_const_ptr?, _ input: UnsafePointer<CChar>?, _ inputLength: size_t, _ flags: CUnsignedInt,
    _ options: UnsafePointer<reshape_file_options>?, _ write: reshape_write_fn?, _ data: UnsafeMutableRawPointer?,
    _ err: UnsafeMutablePointer<reshape_error>?
) -> reshape_status {
    do throws(ReshapeError) {
        let (compiled, text) = try applyArguments(rules, input, inputLength)
        guard let write else { throw ReshapeError(.invalidArgument, "write must not be NULL") }
        let settings = try FileOptions.settings(from: options)
        try compiled.apply(to: text, options: ApplyOptions(rawValue: flags), settings: settings) { piece in
            guard let base = piece.baseAddress else { return 0 }
            return write(base.assumingMemoryBound(to: CChar.self), piece.count, data)
        }
        return succeed(err)
    } catch {
        return report(error, to: err)
    }
}

@_cdecl("reshape_free")
public func reshapeFree(_ buffer: UnsafeMutablePointer<CChar>?) {
    buffer?.deallocate()
}

@_cdecl("reshape_infer")
public func reshapeInfer(
    _ samples: UnsafePointer<CChar>?, _ samplesLength: size_t, _ options: UnsafePointer<CChar>?,
    _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<size_t>?,
    _ err: UnsafeMutablePointer<reshape_error>?
) -> reshape_status {
    handingOverJSON(to: out, length: outLength, err) { () throws(ReshapeError) in
        guard let samples else { throw ReshapeError(.invalidArgument, "samples must not be NULL") }
        // A size_t beyond Int.max arrives negative: no buffer is that large.
        guard samplesLength >= 0 else { throw ReshapeError(.invalidArgument, "samples_len is larger than any buffer") }
        let text = UnsafeRawBufferPointer(start: samples, count: samplesLength)
        guard case .array(let list) = try JSONValue(json: text) else {
            throw ReshapeError(.invalidArgument, "samples must be a JSON array of sample documents")
        }
        var settings = InferenceOptions()
        var root = "Root"
        if let options {
            guard case .object(let object) = try JSONValue(json: String(cString: options)) else {
                throw ReshapeError(.invalidArgument, "options must be a JSON object")
            }
            for member in object.members {
                switch (member.key, member.value) {
                case ("keys", .string(let keys)):
                    guard let value = InferenceOptions.Keys(rawValue: keys) else {
                        throw ReshapeError(.invalidArgument, "options.keys must be camelCase, snake_case, kebab-case or keep")
                    }
                    settings.keys = value
                case ("idKey", .string(let name)): settings.idKey = name
                case ("name", .string(let name)): settings.name = name
                case ("root", .string(let name)): root = name
                case ("unwrap", .bool(let unwrap)): settings.unwrap = unwrap
                case ("map", .array(let paths)), ("object", .array(let paths)):
                    let texts = paths.compactMap(\.stringValue)
                    guard texts.count == paths.count else { throw ReshapeError(.invalidArgument, "options.\(member.key) must be an array of paths") }
                    if member.key == "map" { settings.maps = texts } else { settings.objects = texts }
                default:
                    throw ReshapeError(.invalidArgument, "options has no member \(member.key) of that type (keys, idKey, name, root, unwrap, map, object)")
                }
            }
        }
        let inference = try Inference.infer(list.elements, options: settings)
        var result = JSONObject()
        result["rules"] = inference.rules
        result["reasons"] = .array(inference.reasons.map(\.json))
        result["swift"] = .string(try inference.swift(root: root))
        result["python"] = .string(try inference.python(root: root))
        return try JSONValue.object(result).json()
    }
}

/// Runs `make` and gives the JSON it makes to the caller as a NUL-terminated buffer it frees with
/// `reshape_free()` (and its length without the NUL); on failure, `*out` is untouched and the
/// error goes to `err`.
private func handingOverJSON(
    to out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, length: UnsafeMutablePointer<size_t>?,
    _ err: UnsafeMutablePointer<reshape_error>?, _ make: () throws(ReshapeError) -> [UInt8]
) -> reshape_status {
    do throws(ReshapeError) {
        guard let out else { throw ReshapeError(.invalidArgument, "out must not be NULL") }
        handOver(try make(), to: out, length: length)
        return succeed(err)
    } catch {
        return report(error, to: err)
    }
}

/// Gives `json` to the caller as a NUL-terminated buffer it frees with `reshape_free()`, and its
/// length without the NUL.
private func handOver(
    _ json: [UInt8], to out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, length: UnsafeMutablePointer<size_t>?
) {
    let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: json.count + 1)
    buffer.initialize(from: json, count: json.count)
    buffer[json.count] = 0
    out.pointee = UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: CChar.self)
    length?.pointee = json.count
}
