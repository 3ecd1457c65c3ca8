import DAOKitInternals

/// A ``KeyValueStore`` held in memory: for tests, previews and caches that need
/// ``KeyValueStorageContext``'s record format without touching `UserDefaults`.
///
/// Thread-safe and `Sendable`; its operations never throw. Nothing outlives the instance.
public final class InMemoryKeyValueStore: KeyValueStore, Sendable {
    private let values: Locked<[String: String]>

    /// Creates a store holding `values`, empty by default.
    public init(_ values: [String: String] = [:]) {
        self.values = Locked(values)
    }

    /// The string stored under `key`, or `nil`.
    public func string(forKey key: String) -> String? {
        values.withLock { $0[key] }
    }

    /// Stores `value` under `key`.
    public func setString(_ value: String, forKey key: String) {
        values.withLock { $0[key] = value }
    }

    /// Removes the value under `key`, if any.
    public func removeObject(forKey key: String) {
        values.withLock { $0[key] = nil }
    }

    /// Every key under which a value is stored that starts with `prefix`, in no particular order.
    public func keys(withPrefix prefix: String) -> [String] {
        values.withLock { values in values.keys.filter { $0.hasPrefix(prefix) } }
    }

    /// A copy of everything stored, for inspection in tests and tools.
    public var contents: [String: String] {
        values.withLock { $0 }
    }
}
