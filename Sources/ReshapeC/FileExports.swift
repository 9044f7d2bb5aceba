import CReshapeABI
import ReshapeCore

// reshape_apply_file() and reshape_apply_fd(): declared and documented in include/reshape.h.

@_cdecl("reshape_apply_file")
public func reshapeApplyFile(
    _ rules: reshape_rules_const_ptr?, _ inPath: UnsafePointer<CChar>?, _ outPath: UnsafePointer<CChar>?,
    _ flags: CUnsignedInt, _ options: UnsafePointer<reshape_file_options>?, _ err: UnsafeMutablePointer<reshape_error>?
) -> reshape_status {
    guard let rules = RulesHandle.rules(rules) else { return report(.init(.invalidArgument, "rules must not be NULL"), to: err) }
    guard let inPath else { return report(.init(.invalidArgument, "in_path must not be NULL"), to: err) }
    guard let outPath else { return report(.init(.invalidArgument, "out_path must not be NULL"), to: err) }
    do throws(ReshapeError) {
        let settings = try FileOptions.settings(from: options)
        try rules.applyFile(
            String(cString: inPath), to: String(cString: outPath), options: ApplyOptions(rawValue: flags), settings: settings)
        return succeed(err)
    } catch {
        return report(error, to: err)
    }
}

@_cdecl("reshape_apply_fd")
public func reshapeApplyFD(
    _ rules: reshape_rules_const_ptr?, _ inFD: CInt, _ outFD: CInt, _ flags: CUnsignedInt,
    _ options: UnsafePointer<reshape_file_options>?, _ err: UnsafeMutablePointer<reshape_error>?
) -> reshape_status {
    guard let rules = RulesHandle.rules(rules) else { return report(.init(.invalidArgument, "rules must not be NULL"), to: err) }
    guard inFD >= 0 else { return report(.init(.invalidArgument, "in_fd must be an open descriptor"), to: err) }
    guard outFD >= 0 else { return report(.init(.invalidArgument, "out_fd must be an open descriptor"), to: err) }
    do throws(ReshapeError) {
        let settings = try FileOptions.settings(from: options)
        try rules.apply(fromDescriptor: inFD, toDescriptor: outFD, options: ApplyOptions(rawValue: flags), settings: settings)
        return succeed(err)
    } catch {
        return report(error, to: err)
    }
}

/// `reshape_file_options` (C) to `StreamSettings` (Swift).
enum FileOptions {
    static func settings(from pointer: UnsafePointer<reshape_file_options>?) throws(ReshapeError) -> StreamSettings {
        guard let pointer else { return StreamSettings(jobs: 0) }
        // Only the version field is read before the version is known to be one we understand.
        let version = UnsafeRawPointer(pointer).load(as: UInt32.self)
        guard version >= 1, version <= UInt32(RESHAPE_FILE_OPTIONS_VERSION) else {
            throw ReshapeError(
                .invalidArgument,
                "options->version is \(version); this library knows versions 1 to \(RESHAPE_FILE_OPTIONS_VERSION)")
        }
        // A version 1 caller's struct ends with progress_data: the fields after it are read only
        // for version 2 and later.
        let raw = UnsafeRawPointer(pointer)
        typealias Layout = MemoryLayout<reshape_file_options>
        guard let jobsAt = Layout.offset(of: \.jobs), let progressAt = Layout.offset(of: \.progress),
            let progressDataAt = Layout.offset(of: \.progress_data)
        else { throw ReshapeError(.internal, "reshape_file_options has no stored fields") }
        let jobs = raw.load(fromByteOffset: jobsAt, as: CUnsignedInt.self)
        var settings = StreamSettings(jobs: Int(jobs))
        let progress = raw.load(fromByteOffset: progressAt, as: reshape_progress_fn?.self)
        let progressData = raw.load(fromByteOffset: progressDataAt, as: UnsafeMutableRawPointer?.self)
        if let progress {
            let caller = CallerFunction(progress, data: progressData)
            settings.progress = { done, total in
                caller.function(UInt64(max(0, done)), UInt64(max(0, total)), caller.data) == 0
            }
        }
        if version >= 2, let skipped = pointer.pointee.skipped {
            let caller = CallerFunction(skipped, data: pointer.pointee.skipped_data)
            settings.skippedLine = { error in
                var described = reshape_error()
                _ = report(error, to: &described)
                caller.function(&described, caller.data)
            }
        }
        return settings
    }
}

/// A caller's C function and the data it is called with: called on the calling thread only, which
/// is what makes sending it to the stream's closures safe.
private final class CallerFunction<Function>: @unchecked Sendable {
    let function: Function
    let data: UnsafeMutableRawPointer?

    init(_ function: Function, data: UnsafeMutableRawPointer?) {
        self.function = function
        self.data = data
    }
}
