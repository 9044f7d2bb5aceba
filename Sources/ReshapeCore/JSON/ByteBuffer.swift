/// A growable byte buffer with stable storage, for output and for decoding scratch space.
///
/// Noncopyable so that its memory has exactly one owner: it is freed in `deinit`, or handed over
/// whole by `take()` (the C layer gives that pointer to the caller, who frees it with
/// `reshape_free`).
struct ByteBuffer: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    /// Bytes the buffer holds before it must grow.
    private(set) var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        self.base = UnsafeMutablePointer<UInt8>.allocate(capacity: self.capacity)
    }

    deinit {
        base.deallocate()
    }

    /// The bytes written so far; valid until the next mutation.
    var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base, count: count)
    }

    /// Calls `body` with the bytes, keeping the buffer alive meanwhile (a noncopyable value ends at
    /// its last use, so `buffer.bytes` alone must not outlive the expression that reads it).
    func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(bytes)
    }

    mutating func removeAll() {
        count = 0
    }

    /// The last byte written, if any.
    var lastByte: UInt8? { count > 0 ? base[count - 1] : nil }

    /// Drops the bytes after the first `newCount`.
    mutating func truncate(to newCount: Int) {
        count = min(count, max(0, newCount))
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(minimum: count + 1) }
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        if count.addingClamped(bytes.count) > capacity { grow(minimum: count.addingClamped(bytes.count)) }
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    mutating func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    mutating func append(repeating byte: UInt8, count extra: Int) {
        guard extra > 0 else { return }
        if count.addingClamped(extra) > capacity { grow(minimum: count.addingClamped(extra)) }
        (base + count).update(repeating: byte, count: extra)
        count += extra
    }

    /// Appends what `fill` writes into room for up to `limit` more bytes, and returns what it
    /// returns: the number of bytes it wrote, or a negative number (nothing appended), as
    /// `read(2)` does.
    mutating func append(upTo limit: Int, _ fill: (UnsafeMutableRawBufferPointer) -> Int) -> Int {
        guard limit > 0 else { return 0 }
        if count.addingClamped(limit) > capacity { grow(minimum: count.addingClamped(limit)) }
        let written = fill(UnsafeMutableRawBufferPointer(start: base + count, count: limit))
        if written > 0 { count += min(written, limit) }
        return written
    }

    /// Drops the first `removed` bytes, moving the rest to the front.
    mutating func removeFirst(_ removed: Int) {
        let removed = min(max(0, removed), count)
        guard removed > 0 else { return }
        (base).update(from: base + removed, count: count - removed)
        count -= removed
    }

    /// A copy of the bytes as an array.
    func toArray() -> [UInt8] {
        Array(UnsafeBufferPointer(start: base, count: count))
    }

    /// Hands the storage to the caller, NUL-terminated after `count` bytes. The caller frees the
    /// pointer with `deallocate()`.
    consuming func take() -> (pointer: UnsafeMutablePointer<UInt8>, count: Int) {
        append(0)
        let result = (base, count - 1)
        discard self
        return result
    }

    private mutating func grow(minimum: Int) {
        // Doubling is clamped: a size near Int.max fails to allocate rather than overflowing.
        var newCapacity = capacity.multipliedClamped(by: 2)
        while newCapacity < minimum { newCapacity = newCapacity.multipliedClamped(by: 2) }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.moveInitialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }
}
