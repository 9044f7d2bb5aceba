#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where JSON Lines come from, a run of whole lines at a time: a buffer (a mapped file, or input
/// already in memory), or a descriptor read in chunks as the work goes, so that a pipe
/// (`zcat events.jsonl.gz | reshape --input-lines`) is never held whole: memory stays in
/// proportion to the lines in flight and the longest line. When a pipe has had nothing more to
/// give for a moment (`tail -f events.jsonl | reshape --input-lines`), the run ends at the last
/// whole line already read, marked `waited`, so that its output goes out before the next read.
final class LineSource {
    private let buffer: UnsafeRawBufferPointer?
    private let descriptor: Int32
    private let name: String
    /// Bytes read from the descriptor and not handed out yet: the start of a line.
    private var pending = ByteBuffer(capacity: 1 << 16)
    /// How far into `pending` no line break was found.
    private var searched = 0
    /// The last line break in `pending` before `lastSearched`, or -1: each byte is looked at once
    /// however long a line grows.
    private var lastBreak = -1
    private var lastSearched = 0
    private var ended = false
    /// Bytes handed out so far: where the next run starts in the input.
    private(set) var offset = 0

    /// Lines in `buffer`.
    init(buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
        descriptor = -1
        name = ""
    }

    /// Lines read from `descriptor` (left open) as they are needed; `name` names it in errors.
    init(descriptor: Int32, name: String) {
        buffer = nil
        self.descriptor = descriptor
        self.name = name
    }

    /// The input's size for progress reports: the buffer's, or 0 for a descriptor, whose size is
    /// known only at its end.
    var total: Int { buffer?.count ?? 0 }

    /// True once every byte has been handed out.
    var isAtEnd: Bool {
        if let buffer { return offset >= buffer.count }
        return ended && pending.count == 0
    }

    /// Fills `batch` (as sequence `sequence`) with the next run of whole lines: the lines that
    /// start in the next `bytes` bytes, the last one to its end (or, from a pipe with nothing more
    /// to read yet, the whole lines read so far). False, with `batch` untouched, at the end of the
    /// input.
    func next(into batch: LineBatch, as sequence: Int, bytes: Int) throws(ReshapeError) -> Bool {
        if let buffer {
            guard offset < buffer.count else { return false }
            var end = min(buffer.count, offset.addingClamped(bytes))
            while end < buffer.count, buffer[end - 1] != UInt8(ascii: "\n") { end += 1 }
            batch.reuse(as: sequence, inputStart: offset, inputEnd: end)
            batch.text = UnsafeRawBufferPointer(rebasing: buffer[offset..<end])
            offset = end
            return true
        }
        var cut = 0
        var waited = false
        while true {
            if let found = lineBreak(from: max(searched, bytes - 1)) {
                cut = found + 1
                break
            }
            searched = max(searched, pending.count)
            if ended {
                cut = pending.count
                break
            }
            if let last = lastLineBreak(), !readable() {
                // Nothing more for now: what is whole goes out before a read waits for the rest.
                (cut, waited) = (last + 1, true)
                break
            }
            try fill()
        }
        guard cut > 0 else { return false }
        batch.reuse(as: sequence, inputStart: offset, inputEnd: offset + cut)
        batch.waited = waited
        pending.withBytes { batch.takeText(UnsafeRawBufferPointer(rebasing: $0[0..<cut])) }
        pending.removeFirst(cut)
        (searched, lastBreak, lastSearched) = (0, -1, 0)
        offset += cut
        return true
    }

    /// The first line break in `pending` at or after `start`.
    private func lineBreak(from start: Int) -> Int? {
        pending.withBytes { bytes in
            guard start < bytes.count, let base = bytes.baseAddress,
                let found = memchr(base + start, 0x0A, bytes.count - start)
            else { return nil }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }

    /// The last line break in `pending`, looking only at the bytes read since the last look.
    private func lastLineBreak() -> Int? {
        let from = lastSearched
        if let found = pending.withBytes({ bytes in bytes[from...].lastIndex(of: 0x0A) }) { lastBreak = found }
        lastSearched = pending.count
        return lastBreak >= 0 ? lastBreak : nil
    }

    /// Whether a read finds bytes (or the end) within `quietMilliseconds`: a writer that is only
    /// slower than this reader (`zcat`) refills a pipe far sooner; one that is waiting for
    /// events (`tail -f`) does not.
    private func readable() -> Bool {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&request, 1, Self.quietMilliseconds)
            if ready < 0 && errno == EINTR { continue }
            return ready != 0
        }
    }

    /// How long a pipe may stay empty before the lines already read go out without the rest.
    static let quietMilliseconds: Int32 = 50

    /// Reads the next chunk into `pending`, or notes the end.
    private func fill() throws(ReshapeError) {
        let descriptor = descriptor
        while true {
            let count = pending.append(upTo: 1 << 18) { space in read(descriptor, space.baseAddress, space.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw InputFile.failure(name, errno) }
            if count == 0 { ended = true }
            return
        }
    }
}
