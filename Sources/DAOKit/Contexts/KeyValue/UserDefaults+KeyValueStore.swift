import Foundation

/// `UserDefaults` as a ``KeyValueStore``: `string(forKey:)` and `removeObject(forKey:)` are its own.
///
/// Values are stored as strings, so `defaults read <suite>` (macOS) or the suite's property list
/// (`~/.config/<suite>.plist` on Linux) shows records as readable JSON.
extension UserDefaults: KeyValueStore {
    /// Stores `value` under `key` with `set(_:forKey:)`. Never throws.
    public func setString(_ value: String, forKey key: String) {
        set(value, forKey: key)
    }

    /// The keys of `dictionaryRepresentation()` that start with `prefix`. Never throws.
    ///
    /// That dictionary is every domain this object searches (the suite, the app's and the global
    /// domain, registered defaults), so a key registered with `register(defaults:)` under a
    /// context's prefix is listed too; nothing DAOKit writes is registered.
    public func keys(withPrefix prefix: String) -> [String] {
        dictionaryRepresentation().keys.filter { $0.hasPrefix(prefix) }
    }

    /// Off Apple platforms 1,000, `nil` on them. swift-corelibs-foundation keeps a list of the keys
    /// written since the last `synchronize()` and scans it on every write, so each write costs in
    /// proportion to the writes before it, and a long batch grows quadratically unless it is
    /// synchronized every so often.
    public var writesBetweenFlushes: Int? {
        #if canImport(Darwin)
            return nil
        #else
            return 1_000
        #endif
    }

    /// On Apple platforms does nothing: the system persists defaults by itself and discourages
    /// `synchronize()`. Elsewhere (swift-corelibs-foundation) writes are kept in memory until
    /// `synchronize()` and are lost when the process ends without it, so this calls it.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/io(_:)`` when `synchronize()` reports
    ///   that the property list could not be written.
    public func flush() throws {
        #if !canImport(Darwin)
            if !synchronize() {
                throw StorageError(.io("UserDefaults.synchronize() could not write the defaults to disk"))
            }
        #endif
    }
}
