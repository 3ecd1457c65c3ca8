extension KeyValueStorageContext {
    /// Removes every record of every entity type under this context's ``namespace`` (keys of other
    /// namespaces on the same store are untouched), all or nothing as ``deleteAll(_:)`` is: every
    /// value is read first, and when a removal fails the removed values are put back. Announces
    /// ``StorageChange/everything``.
    ///
    /// Like every batch of this context, it is all or nothing for this process: a process killed
    /// in the middle leaves the records not yet removed (see the type's description).
    /// - Throws: ``StorageError`` of kind `.io` when the store cannot list, read or write its keys;
    ///   the store then holds what it held before.
    public func reset() throws {
        let prefix = KeyValueKeyScheme.escape(namespace) + "/"
        try lockedStore.withLock { store in
            let storeKeys = try access(namespace, nil, prefix) { try store.keys(withPrefix: prefix) }
            try remove(storeKeys.sorted().map { (key: nil, storeKey: $0) }, of: namespace, from: store)
        }
        notifier.post(.everything)
    }
}
