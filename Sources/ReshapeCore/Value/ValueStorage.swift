#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The heap storage behind `JSONArray` and `JSONObject`, which releases nested values without
/// recursion.
///
/// Swift releases an array of enums one level at a time, recursively: a `JSONValue` 1000 levels
/// deep needed more than the 512 KiB of a dispatch thread to be released in a debug build. So the
/// values of arrays and objects live in these final classes, whose `deinit` is a trampoline: the
/// first storage released on a thread moves its values to a worklist and releases them one by one;
/// a storage released meanwhile (one of those values') only moves its own values to the same
/// worklist and returns. The stack never holds more than two of them.
final class ValueStorage<Element>: @unchecked Sendable {
    // Mutated only through a uniquely held reference (`JSONArray` and `JSONObject` copy on write),
    // so sharing one between threads is safe.
    var elements: [Element]
    /// The values inside `elements`, for the worklist.
    private let values: @Sendable (Element) -> JSONValue

    init(_ elements: [Element], values: @escaping @Sendable (Element) -> JSONValue) {
        self.elements = elements
        self.values = values
    }

    deinit {
        guard !elements.isEmpty else { return }
        // `moved` becomes the only owner of the values: no other copy may release them later.
        var moved = elements.map(values)
        elements = []
        ValueRelease.release(&moved)
    }
}

/// The per-thread worklist of `ValueStorage`'s trampoline.
enum ValueRelease {
    /// Where this thread's worklist is while one is being drained.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Releases `values` (left empty): into the worklist being drained on this thread, or as the
    /// drain itself.
    static func release(_ values: inout [JSONValue]) {
        if let active = pthread_getspecific(key) {
            active.assumingMemoryBound(to: [JSONValue].self).pointee.append(contentsOf: values)
            values.removeAll()
            return
        }
        withUnsafeMutablePointer(to: &values) { pointer in
            pthread_setspecific(key, pointer)
            // Each value dies at the end of an iteration; a storage dying with it adds its values
            // to `pointer.pointee` and returns.
            while pointer.pointee.popLast() != nil {}
            pthread_setspecific(key, nil)
        }
    }
}
