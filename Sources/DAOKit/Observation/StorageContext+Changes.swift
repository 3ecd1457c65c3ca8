/// Defaults for contexts written before change notifications and `reset()` existed: they keep
/// compiling, announce nothing, and refuse to reset.
extension StorageContext {
    /// `nil`: this context does not announce its writes.
    public var changeNotifier: StorageChangeNotifier? { nil }

    /// Throws ``StorageError`` of kind `.io`: this context does not say which entity types it
    /// holds, so it cannot remove them all. Implement `reset()` to support it.
    public func reset() throws {
        throw StorageError(.io("\(type(of: self)) does not implement reset(); it cannot remove every entity type"))
    }
}
