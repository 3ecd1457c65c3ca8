import Foundation

/// An identifier that storage contexts can turn into a string and back.
///
/// Contexts derive store keys and file names from ``storageKey`` and recover ids from them with
/// ``init(storageKey:)``, so the two must round-trip: `T(storageKey: id.storageKey) == id`.
/// DAOKit ships conformances for `String`, `Int`, `Int64` and `UUID`.
public protocol StorageKey: Hashable, Sendable {
    /// The id as a string. Any string is allowed; contexts escape it before using it as a name.
    var storageKey: String { get }
    /// Recovers an id from its ``storageKey``; `nil` when the string is not a valid id.
    init?(storageKey: String)
}

extension String: StorageKey {
    /// The string itself.
    public var storageKey: String { self }
    /// The string itself; never fails.
    public init?(storageKey: String) { self = storageKey }
}

extension Int: StorageKey {
    /// The decimal digits of the integer.
    public var storageKey: String { String(self) }
    /// Parses decimal digits; `nil` for anything else.
    public init?(storageKey: String) { self.init(storageKey, radix: 10) }
}

extension Int64: StorageKey {
    /// The decimal digits of the integer.
    public var storageKey: String { String(self) }
    /// Parses decimal digits; `nil` for anything else.
    public init?(storageKey: String) { self.init(storageKey, radix: 10) }
}

extension UUID: StorageKey {
    /// The canonical upper-case `uuidString`.
    public var storageKey: String { uuidString }
    /// Parses a `uuidString`; `nil` for anything else.
    public init?(storageKey: String) { self.init(uuidString: storageKey) }
}
