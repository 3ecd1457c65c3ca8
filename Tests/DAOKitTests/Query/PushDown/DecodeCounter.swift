import DAOKit
import DAOKitInternals
import Foundation

/// Counts calls of a type's `init(from:)`: how push-down is observed from outside a context. A
/// record a context reads from its store, or copies out of memory, is decoded once; a value
/// BaseDao maps to a domain value is decoded once.
///
/// One counter per type, and every suite that counts uses its own types and runs serialized, so
/// no other test's work shows up in a count.
final class DecodeCounter: Sendable {
    private let count = Locked(0)

    func increment() {
        count.withLock { $0 += 1 }
    }

    /// The count since the last ``reset()``.
    var value: Int { count.withLock { $0 } }

    func reset() {
        count.withLock { $0 = 0 }
    }

    /// How many decodes `body` makes.
    func decodes<T>(during body: () throws -> T) rethrows -> (result: T, decodes: Int) {
        reset()
        let result = try body()
        return (result, value)
    }
}
