#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReshapeCore

// The engine has no Foundation, so its error becomes a LocalizedError here, where Foundation is.
extension ReshapeError: LocalizedError {
    /// The engine's one-line description (`rule_failed: rule 1 (keyedToArray) at $['u1']: ...`),
    /// so that `error.localizedDescription` says what went wrong.
    public var errorDescription: String? { description }
}
