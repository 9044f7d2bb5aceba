#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The JSON text a decoding reads: the engine's output buffer, taken over without a copy, or a copy
/// of other bytes. Freed when the last decoder, container or index holding it goes.
final class ShapedBytes: @unchecked Sendable {
    /// The text. Never written after `init`.
    let buffer: UnsafeRawBufferPointer

    /// Takes over a buffer allocated as `count` bytes of `UInt8` (as the engine hands its output).
    init(taking pointer: UnsafeMutablePointer<UInt8>, count: Int) {
        buffer = UnsafeRawBufferPointer(start: pointer, count: count)
    }

    /// Copies `bytes`.
    init(copying bytes: some Collection<UInt8>) {
        let count = bytes.count
        let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: max(count, 1))
        let copied = bytes.withContiguousStorageIfAvailable { source -> Int in
            guard let base = source.baseAddress else { return 0 }
            storage.initialize(from: base, count: source.count)
            return source.count
        }
        var written = copied ?? 0
        if copied == nil {
            for byte in bytes where written < count {
                storage[written] = byte
                written += 1
            }
        }
        buffer = UnsafeRawBufferPointer(start: storage, count: written)
    }

    deinit {
        buffer.baseAddress?.deallocate()
    }

    /// The text as `Data`, sharing this storage (kept alive by the `Data`).
    var data: Data {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return Data() }
        return Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: buffer.count, deallocator: .custom { _, _ in
            withExtendedLifetime(self) {}
        })
    }
}
