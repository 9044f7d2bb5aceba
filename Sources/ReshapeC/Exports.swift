import CReshapeABI
import ReshapeCore

// The C API: each function is declared and documented in include/reshape.h, which is the
// reference. These are thin: check arguments, call the engine, map errors to statuses. Nothing
// here may trap, since a trap would kill the host process.

@_cdecl("reshape_version")
public func reshapeVersion() -> UnsafePointer<CChar> {
    versionCString
}

@_cdecl("reshape_status_name")
public func reshapeStatusName(_ status: Int32) -> UnsafePointer<CChar> {
    StatusNames.name(of: status)
}

@_cdecl("reshape_rules_new")
public func reshapeRulesNew(
    _ spec: UnsafePointer<CChar>?, _ specLength: Int, _ out: UnsafeMutablePointer<OpaquePointer?>?,
    _ err: UnsafeMutablePointer<reshape_error>?
) -> Int32 {
    compileRules(spec, specLength, .default, out, err)
}

@_cdecl("reshape_rules_new_with_limits")
public func reshapeRulesNewWithLimits(
    _ spec: UnsafePointer<CChar>?, _ specLength: Int, _ limits: UnsafePointer<reshape_limits>?,
    _ out: UnsafeMutablePointer<OpaquePointer?>?, _ err: UnsafeMutablePointer<reshape_error>?
) -> Int32 {
    guard let limits else { return compileRules(spec, specLength, .default, out, err) }
    switch LimitsConversion.limits(from: limits) {
    case .success(let converted): return compileRules(spec, specLength, converted, out, err)
    case .failure(let error): return report(error, to: err)
    }
}

private func compileRules(
    _ spec: UnsafePointer<CChar>?, _ specLength: Int, _ limits: Limits, _ out: UnsafeMutablePointer<OpaquePointer?>?,
    _ err: UnsafeMutablePointer<reshape_error>?
) -> Int32 {
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
public func reshapeRulesFree(_ rules: OpaquePointer?) {
    RulesHandle.release(rules)
}

@_cdecl("reshape_apply")
public func reshapeApply(
    _ rules: OpaquePointer?, _ input: UnsafePointer<CChar>?, _ inputLength: Int, _ flags: UInt32,
    _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLength: UnsafeMutablePointer<Int>?,
    _ err: UnsafeMutablePointer<reshape_error>?
) -> Int32 {
    guard let handle = RulesHandle.handle(rules) else {
        return report(.init(.invalidArgument, "rules must not be NULL"), to: err)
    }
    guard let input else { return report(.init(.invalidArgument, "input must not be NULL"), to: err) }
    guard inputLength >= 0 else { return report(.init(.invalidArgument, "input_len is larger than any buffer"), to: err) }
    guard let out else { return report(.init(.invalidArgument, "out must not be NULL"), to: err) }
    do throws(ReshapeError) {
        let buffer = try handle.rules.applyTakingBuffer(
            UnsafeRawBufferPointer(start: input, count: inputLength), options: ApplyOptions(rawValue: flags))
        out.pointee = UnsafeMutableRawPointer(buffer.pointer).assumingMemoryBound(to: CChar.self)
        outLength?.pointee = buffer.count
        return succeed(err)
    } catch {
        return report(error, to: err)
    }
}

@_cdecl("reshape_free")
public func reshapeFree(_ buffer: UnsafeMutablePointer<CChar>?) {
    buffer?.deallocate()
}
