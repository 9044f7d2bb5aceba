#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where JSON Lines come from, a run of whole lines at a time: input in memory, or a region read
/// from a file or a pipe as the work goes, so that neither is ever held whole: memory stays in
/// proportion to the lines in flight and the longest line (`zcat events.jsonl.gz | reshape
/// --input-lines`). When a pipe has had nothing more to give for a moment (`tail -f events.jsonl
/// | reshape --input-lines`), the run ends at the last whole line already read, marked `waited`,
/// so that its output goes out before the next read.
final class LineSource {
    private let buffer: UnsafeRawBufferPointer?
    /// The region read now; from a pipe, a new one takes over when this one's address space is
    /// half used, so that lines can go on for ever (batches keep the region they point into).
    private var region: InputRegion?
    /// Where `region`'s offset 0 lies in the input.
    private var base = 0
    /// How far into the region no line break was found.
    private var searched = 0
    /// The last line break before `lastSearched`, or -1: each byte is looked at once however long
    /// a line grows.
    private var lastBreak = -1
    private var lastSearched = 0
    /// Where the next run starts in `region` (or `buffer`).
    private var offset = 0

    /// Bytes handed out so far: where the next run starts in the input.
    var inputOffset: Int { base + offset }

    /// Lines in `buffer`.
    init(buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
        region = nil
    }

    /// Lines read from `region` as they are needed.
    init(region: InputRegion) {
        buffer = nil
        self.region = region
    }

    /// The input's size for progress reports: the buffer's or the file's, or 0 for a pipe, whose
    /// size is known only at its end.
    var total: Int { buffer?.count ?? region?.knownSize ?? 0 }

    /// True once every byte has been handed out.
    var isAtEnd: Bool {
        if let buffer { return offset >= buffer.count }
        guard let region else { return true }
        return region.isAtEnd && offset >= region.filled
    }

    /// Tells the region that the lines before `offset` (in the input) are done with.
    func release(below offset: Int) {
        region?.release(below: offset - base)
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
        guard var region else { return false }
        if !region.canReread && region.filled > region.capacity / 2 {
            // Go on in a new region, which starts with the line begun here.
            region = try InputRegion(continuing: region, from: offset)
            self.region = region
            base += offset
            (offset, searched, lastBreak, lastSearched) = (0, 0, -1, 0)
        }
        var cut = offset
        var waited = false
        while true {
            if let found = lineBreak(in: region, from: max(searched, offset.addingClamped(bytes - 1))) {
                cut = found + 1
                break
            }
            searched = max(searched, region.filled)
            if region.isAtEnd {
                cut = region.filled
                break
            }
            if let last = lastLineBreak(in: region), region.wouldWait() {
                // Nothing more for now: what is whole goes out before a read waits for the rest.
                (cut, waited) = (last + 1, true)
                break
            }
            try region.readMore()
        }
        guard cut > offset else { return false }
        batch.reuse(as: sequence, inputStart: base + offset, inputEnd: base + cut)
        batch.waited = waited
        batch.text = UnsafeRawBufferPointer(rebasing: region.text[offset..<cut])
        batch.textOwner = region
        offset = cut
        return true
    }

    /// The first line break in what `region` holds at or after `start`.
    private func lineBreak(in region: InputRegion, from start: Int) -> Int? {
        let text = region.text
        guard start < text.count, let base = text.baseAddress, let found = memchr(base + start, 0x0A, text.count - start)
        else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    /// The last line break after `offset` in what `region` holds, looking only at the bytes read
    /// since the last look.
    private func lastLineBreak(in region: InputRegion) -> Int? {
        let from = max(lastSearched, offset)
        let text = region.text
        if from < text.count, let found = text[from...].lastIndex(of: 0x0A) { lastBreak = found }
        lastSearched = text.count
        return lastBreak >= offset ? lastBreak : nil
    }
}
