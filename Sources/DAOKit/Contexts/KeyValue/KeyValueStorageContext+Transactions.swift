/// Transactions over a key-value store: the handle is a context over an overlay that keeps the
/// transaction's writes in memory and reads through to the context's store; the commit writes them
/// to the store under the context's lock, as one batch.
///
/// What that gives is what a batch gives (see the type's description): all or nothing when a
/// write fails (the ones made are put back) and for readers through this context, who never see
/// part of a transaction; not across a crash, nor for other contexts or processes on the store,
/// since no key-value store offers a multi-key commit. Reads inside see the store as it is now
/// (other writers' commits included) under the transaction's own writes, and the last writer wins:
/// a key-value store has no version to detect a conflict with.
extension KeyValueStorageContext: TransactionalStorageContext, TransactionSteps {
    /// Runs `body` with a handle on a new transaction and writes what it wrote to the store, all
    /// at once, when it returns. ``BaseDao``s made on the handle read their own writes, queries
    /// and counts included; readers through this context see none of them until the commit.
    /// Called on a handle, it nests (the nested transaction commits into the outer one).
    /// - Throws: what `body` throws, with nothing written; ``StorageError/Kind/io(_:)`` when the
    ///   store fails during the commit (what was written is put back);
    ///   ``StorageError/Kind/transactionClosed`` on a handle whose transaction ended.
    public func transaction<Result>(_ body: (KeyValueStorageContext) throws -> Result) throws -> Result {
        try runTransaction(body)
    }

    /// The `async` form of `transaction(_:)`: the same transaction and errors.
    /// - Throws: as `transaction(_:)`.
    public func transaction<Result: Sendable>(
        _ body: @Sendable (KeyValueStorageContext) async throws -> Result
    ) async throws -> Result {
        try await runTransaction(body)
    }

    package func beginTransaction() throws -> KeyValueStorageContext {
        // A nested transaction does not begin on a closed handle.
        try lockedStore.withLock { store in try (store as? TransactionOverlayStore)?.checkOpen() }
        return KeyValueStorageContext(store: TransactionOverlayStore(parent: self), namespace: namespace)
    }

    package func commitTransaction(_ handle: KeyValueStorageContext) throws {
        try commit(handle.closeTransaction())
    }

    package func abandonTransaction(_ handle: KeyValueStorageContext) {
        _ = handle.closeTransaction()
    }

    /// Closes this handle's overlay (under its lock, so no call of the handle is half done) and
    /// returns its writes; nothing for a context that is not a transaction's handle.
    private func closeTransaction() -> [String: String?] {
        (try? lockedStore.withLock { store in (store as? TransactionOverlayStore)?.close() ?? [:] }) ?? [:]
    }

    /// Writes `writes` to the store under the lock, putting back what was written when one fails,
    /// then announces the entity types they belong to at once.
    private func commit(_ writes: [String: String?]) throws {
        if writes.isEmpty { return }
        let ordered = writes.keys.sorted()
        try lockedStore.withLock { store in
            var done: [(storeKey: String, old: String?)] = []
            do {
                for storeKey in ordered {
                    let old = try store.string(forKey: storeKey)
                    if let value = writes[storeKey]! {
                        try store.setString(value, forKey: storeKey)
                    } else {
                        try store.removeObject(forKey: storeKey)
                    }
                    done.append((storeKey, old))
                }
                try store.flush()
            } catch {
                for (storeKey, old) in done.reversed() {
                    if let old {
                        try? store.setString(old, forKey: storeKey)
                    } else {
                        try? store.removeObject(forKey: storeKey)
                    }
                }
                try? store.flush()
                throw Self.commitFailure(error, location: done.last?.storeKey)
            }
        }
        var names = Set<String>()
        for storeKey in ordered {
            if let components = KeyValueKeyScheme.components(of: storeKey), components.count == 3 {
                names.insert(components[1])
            }
        }
        notifier.post(contentsOf: names.sorted().map(StorageChange.entity))
    }

    private static func commitFailure(_ error: any Error, location: String?) -> StorageError {
        if let error = error as? StorageError { return error }
        return StorageError(.io(String(describing: error)), location: location, underlyingError: error)
    }
}

/// A transaction's store: its writes, kept in memory, over its context's store, read through.
/// Called only under its handle's lock (``KeyValueStorageContext/lockedStore``), so one thread
/// at a time; it takes the parent context's lock to read the parent's store.
final class TransactionOverlayStore: KeyValueStore, @unchecked Sendable {
    private let parent: KeyValueStorageContext
    /// Store key → the value written, or `nil` for a removal.
    private var writes: [String: String?] = [:]
    private var isOpen = true

    init(parent: KeyValueStorageContext) {
        self.parent = parent
    }

    /// Ends the transaction: every later call throws ``StorageError/Kind/transactionClosed``.
    func close() -> [String: String?] {
        isOpen = false
        defer { writes = [:] }
        return writes
    }

    func checkOpen() throws {
        if !isOpen { throw StorageError(.transactionClosed) }
    }

    func string(forKey key: String) throws -> String? {
        try checkOpen()
        if let written = writes[key] { return written }
        return try parent.lockedStore.withLock { try $0.string(forKey: key) }
    }

    func setString(_ value: String, forKey key: String) throws {
        try checkOpen()
        writes[key] = .some(value)
    }

    func removeObject(forKey key: String) throws {
        try checkOpen()
        writes[key] = .some(nil)
    }

    func keys(withPrefix prefix: String) throws -> [String] {
        try checkOpen()
        var keys = Set(try parent.lockedStore.withLock { try $0.keys(withPrefix: prefix) })
        for (key, value) in writes where key.hasPrefix(prefix) {
            if value == nil { keys.remove(key) } else { keys.insert(key) }
        }
        return Array(keys)
    }
}
