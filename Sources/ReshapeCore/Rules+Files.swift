#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reshaping files and descriptors, streaming: the input is read as the work goes (see
/// `InputRegion`), and output is written as it is made. For a document that is one collection of
/// records, memory stays in proportion to the records in flight whatever the input's size.
extension Rules {
    /// Reshapes the file at `inputPath` into `outputPath`, which is replaced only on success
    /// (keeping its permissions, owner and group; a symbolic link's target is replaced) and never
    /// left partly written. `outputPath` may be a device or a pipe (`/dev/null`), written as it
    /// comes. Gives the same bytes as ``apply(to:options:)-(UnsafeRawBufferPointer,_)``.
    /// - Parameter settings: threads (`jobs: 0` is one per core) and progress.
    /// - Throws: `ReshapeError`; `io_error` when a file cannot be read or written (with the
    ///   system's words and `errno`) or the input file changed while it was read, `cancelled` when
    ///   `settings.progress` returned false.
    public func applyFile(
        _ inputPath: String, to outputPath: String, options: ApplyOptions = [], settings: StreamSettings = StreamSettings(jobs: 0)
    ) throws(ReshapeError) {
        let input = open(inputPath, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw .readFailure(inputPath, errno: errno) }
        defer { close(input) }
        try apply(from: input, named: inputPath, toFile: outputPath, options: options, settings: settings)
    }

    /// Reshapes what `input` reads (to its end) into `output`, written as it is made. Both stay
    /// open and owned by the caller. On failure, `output` has received a prefix of the output
    /// (possibly none) and nothing after the error; callers that need all-or-nothing write to a
    /// file and use ``applyFile(_:to:options:settings:)``.
    /// - Parameter name: what errors call the input (its path, "standard input"); by default
    ///   "descriptor N".
    /// - Throws: `ReshapeError`, as ``applyFile(_:to:options:settings:)``.
    public func apply(
        fromDescriptor input: Int32, named name: String? = nil, toDescriptor output: Int32, options: ApplyOptions = [],
        settings: StreamSettings = StreamSettings(jobs: 0)
    ) throws(ReshapeError) {
        let sink = DescriptorSink(descriptor: output, name: output == STDOUT_FILENO ? "standard output" : "descriptor \(output)")
        try apply(from: input, named: name ?? "descriptor \(input)", to: sink, options: options, settings: settings)
    }

    /// Reshapes what `input` reads (to its end) into `outputPath`, replaced only on success as by
    /// ``applyFile(_:to:options:settings:)``: for input from a pipe or standard input.
    /// - Parameter name: what errors call the input; by default "descriptor N".
    public func apply(
        fromDescriptor input: Int32, named name: String? = nil, toFile outputPath: String, options: ApplyOptions = [],
        settings: StreamSettings = StreamSettings(jobs: 0)
    ) throws(ReshapeError) {
        try apply(from: input, named: name ?? "descriptor \(input)", toFile: outputPath, options: options, settings: settings)
    }

    /// `input` (named `name` in errors) into `outputPath`, replaced only on success.
    private func apply(
        from input: Int32, named name: String, toFile outputPath: String, options: ApplyOptions, settings: StreamSettings
    ) throws(ReshapeError) {
        let output = try ReplacedFile(path: outputPath)
        do throws(ReshapeError) {
            let sink = DescriptorSink(
                descriptor: output.descriptor, name: outputPath, rewritable: true, writeBehind: output.syncsOnCommit)
            try apply(from: input, named: name, to: sink, options: options, settings: settings)
            try output.commit(path: outputPath)
        } catch {
            output.abandon()
            throw error
        }
    }

    private func apply(
        from descriptor: Int32, named name: String, to sink: DescriptorSink, options: ApplyOptions, settings: StreamSettings
    ) throws(ReshapeError) {
        try options.validate()
        let input = try InputRegion(
            descriptor: descriptor, name: name, chunk: settings.inputChunkBytes, pipeReservation: settings.pipeReservationBytes)
        let read: Int
        do {
            read = try reshape(input, options: options, settings: settings, into: sink)
        } catch {
            // A stream traced its failing record itself; a whole tree is traced from the file.
            guard error.code == .ruleFailed, !error.wasTraced else { throw error }
            var traced = error
            traced.setTraced(sourceOfFailure(error, inFile: descriptor, options: options) ?? sourceOfFailure(error, held: input, options: options))
            throw traced
        }
        try sink.flush()
        _ = settings.progress?(read, read)  // The end: too late to cancel.
    }

    /// Input up to this size is traced by following every value (`SourceTracer`), larger input
    /// by where its values start (`PositionTracer`).
    static let traceFileLimit = 64 << 20

    /// The source of a rule's failure on input that `region` still holds whole (a pipe's text kept
    /// by the whole-tree parse), or nil.
    @inline(never)
    private func sourceOfFailure(_ error: ReshapeError, held region: InputRegion, options: ApplyOptions) -> ValueSource? {
        guard region.releasedTo == 0, region.isAtEnd else { return nil }
        return sourceOfFailure(error, in: region.text, options: options)
    }

    /// The source of a rule's failure on the regular file `descriptor` (read again from its start),
    /// or nil.
    @inline(never)
    private func sourceOfFailure(_ error: ReshapeError, inFile descriptor: Int32, options: ApplyOptions) -> ValueSource? {
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_size > 0,
            status.st_size <= Int.max / 2
        else { return nil }
        // The whole tree the rules failed on took several times the file; the file is read whole
        // once more (malloc's failure is nil, not a trap).
        guard let space = malloc(Int(status.st_size)) else { return nil }
        defer { free(space) }
        let bytes = UnsafeMutableRawBufferPointer(start: space, count: Int(status.st_size))
        var done = 0
        while done < bytes.count {
            let count = pread(descriptor, space + done, bytes.count - done, off_t(done))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            done += count
        }
        return sourceOfFailure(error, in: UnsafeRawBufferPointer(bytes), options: options)
    }
}
