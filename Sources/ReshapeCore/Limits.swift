/// The documented limits of the engine. Going beyond one is `limit_exceeded`, never a crash.
public enum Limits {
    /// The deepest nesting of arrays and objects accepted in input and rules documents.
    ///
    /// `[[1]]` has depth 2. Real API responses stay far below; the limit exists so that hostile
    /// input cannot exhaust the stack of whoever walks the tree after us.
    public static let maxDepth = 1000
}
