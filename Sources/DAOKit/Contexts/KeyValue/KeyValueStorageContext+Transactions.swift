/// Transactions over a key-value store: the handle is a context over an overlay that keeps the
/// transaction's writes in memory and reads through to the context's store; the commit writes them
/// to the store under the context's lock, as one batch.
///
/// What that gives is what a batch gives (see the type's description): all or nothing when a
/// write fails (the ones made are put back) and for readers through this context, who never see
/// part of a transaction; not across a crash, nor for other contexts or processes on the store,
/// since no key-value store offers a multi-key commit.
///
/// Isolation is optimistic: the transaction remembers every value and every list of keys it read
/// from the store, and reads them again from what it remembered, so it sees each as it first read
/// it. The commit, under the context's lock, compares them with the store: when another writer
/// changed one meanwhile, it throws ``StorageError/Kind/transactionConflict(_:)`` naming the type
/// and writes nothing (run it again). That makes a read-modify-write through a transaction safe
/// against every other writer through this context. The comparison and the writes are atomic
/// only under this context's lock: another context or process sharing the store is caught when
/// its write lands before the comparison, not while the commit runs.
extension KeyValueStorageContext: TransactionalStorageContext, TransactionSteps {
    /// Runs `body` with a handle on a new transaction and writes what it wrote to the store, all
    /// at once, when it returns. ``BaseDao``s made on the handle read their own writes, queries
    /// and counts included; readers through this context see none of them until the commit.
    /// Called on a handle, it nests (the nested transaction commits into the outer one).
    /// - Throws: what `body` throws, with nothing written; ``StorageError/Kind/io(_:)`` when the
    ///   store fails during the commit (what was written is put back);
    ///   ``StorageError/Kind/transactionConflict(_:)`` when another writer changed, after the
    ///   transaction read it, a value or a list of keys it read (nothing written; run it again);
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
    /// returns what it read and wrote; nothing for a context that is not a transaction's handle.
    private func closeTransaction() -> TransactionOverlayStore.Outcome {
        (try? lockedStore.withLock { store in (store as? TransactionOverlayStore)?.close() })
            ?? TransactionOverlayStore.Outcome()
    }

    /// Checks, under the lock, that the store still holds what the transaction read (so that what
    /// the body saw, even a body that only read, was one state of the store), then writes its
    /// writes, putting back what was written when one fails; then announces the entity types they
    /// belong to at once.
    private func commit(_ outcome: TransactionOverlayStore.Outcome) throws {
        let writes = outcome.writes
        if writes.isEmpty && outcome.reads.isEmpty && outcome.listings.isEmpty { return }
        let ordered = writes.keys.sorted()
        try lockedStore.withLock { store in
            try Self.checkUnchanged(outcome, in: store)
            if writes.isEmpty { return }
            var done: [(storeKey: String, old: String?)] = []
            do {
                for storeKey in ordered {
                    // What to put back on failure: a value the transaction read was just found
                    // unchanged, so it need not be read again.
                    let old = try outcome.reads[storeKey] ?? store.string(forKey: storeKey)
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
        if writes.isEmpty { return }
        notifier.post(contentsOf: Self.entityNames(ofSortedKeys: ordered).map(StorageChange.entity))
    }

    /// The entity names of the record keys `sorted` (`namespace/entityName/key`, in order), each
    /// once, in order. The keys of one type are consecutive, so a name is unescaped once per run
    /// of keys that share its prefix, not once per key.
    static func entityNames(ofSortedKeys sorted: [String]) -> [String] {
        var names = Set<String>()
        var runPrefix: String?
        for storeKey in sorted {
            // A `String` prefix: `hasPrefix` compares the bytes of two ASCII strings at once, where
            // iterating two UTF-8 views would cost a call per byte.
            if let runPrefix, storeKey.hasPrefix(runPrefix) { continue }
            runPrefix = nil
            guard let name = KeyValueKeyScheme.entityName(ofRecordKey: storeKey) else { continue }
            names.insert(name)
            // `namespace/entityName/`: up to the last slash, since a record key has exactly two.
            if let slash = storeKey.utf8.lastIndex(of: UInt8(ascii: "/")) { runPrefix = String(storeKey[...slash]) }
        }
        return names.sorted()
    }

    /// Throws ``StorageError/Kind/transactionConflict(_:)`` when `store` no longer holds a value
    /// or a list of keys as the transaction read it.
    /// The keys are compared in the dictionaries' order, and sorted only to name the first that
    /// changed, so that the error does not depend on hashing.
    private static func checkUnchanged(_ outcome: TransactionOverlayStore.Outcome, in store: any KeyValueStore) throws {
        var changed: [String] = []
        for (storeKey, value) in outcome.reads where try store.string(forKey: storeKey) != value {
            changed.append(storeKey)
        }
        if let first = changed.min() { throw conflict(at: first) }
        for (prefix, keys) in outcome.listings where Set(try store.keys(withPrefix: prefix)) != keys {
            changed.append(prefix)
        }
        if let first = changed.min() { throw conflict(at: first) }
    }

    private static func conflict(at storeKey: String) -> StorageError {
        // A record's key is namespace/Entity/id; a listing's prefix is namespace/Entity/.
        let components = KeyValueKeyScheme.components(of: storeKey)
        let entityName = components.flatMap { $0.count >= 2 ? $0[1] : nil }
        return StorageError(
            .transactionConflict("another writer changed \(entityName ?? storeKey) while the transaction ran"),
            entityName: entityName, key: components.flatMap { $0.count >= 3 && !$0[2].isEmpty ? $0[2] : nil })
    }

    private static func commitFailure(_ error: any Error, location: String?) -> StorageError {
        if let error = error as? StorageError { return error }
        return StorageError(.io(String(describing: error)), location: location, underlyingError: error)
    }
}

/// A transaction's store: its writes, kept in memory, over its context's store, read through;
/// what it read of that store is remembered, so that it reads it again the same, and so that the
/// commit can tell whether another writer changed it.
/// Called only under its handle's lock (``KeyValueStorageContext/lockedStore``), so one thread
/// at a time; it takes the parent context's lock to read the parent's store.
final class TransactionOverlayStore: KeyValueStore, @unchecked Sendable {
    /// What a transaction read and wrote.
    struct Outcome {
        /// Store key → the value written, or `nil` for a removal.
        var writes: [String: String?] = [:]
        /// Store key → the value the transaction first read from the store (`nil`: absent).
        var reads: [String: String?] = [:]
        /// Prefix → the store's keys with it when the transaction first listed them.
        var listings: [String: Set<String>] = [:]
    }

    private let parent: KeyValueStorageContext
    private var outcome = Outcome()
    private var isOpen = true

    init(parent: KeyValueStorageContext) {
        self.parent = parent
    }

    /// Ends the transaction: every later call throws ``StorageError/Kind/transactionClosed``.
    func close() -> Outcome {
        isOpen = false
        defer { outcome = Outcome() }
        return outcome
    }

    func checkOpen() throws {
        if !isOpen { throw StorageError(.transactionClosed) }
    }

    func string(forKey key: String) throws -> String? {
        try checkOpen()
        if let written = outcome.writes[key] { return written }
        if let read = outcome.reads[key] { return read }
        let value = try parent.lockedStore.withLock { try $0.string(forKey: key) }
        outcome.reads[key] = .some(value)
        return value
    }

    func setString(_ value: String, forKey key: String) throws {
        try checkOpen()
        outcome.writes[key] = .some(value)
    }

    func removeObject(forKey key: String) throws {
        try checkOpen()
        outcome.writes[key] = .some(nil)
    }

    func keys(withPrefix prefix: String) throws -> [String] {
        try checkOpen()
        var keys: Set<String>
        if let listed = outcome.listings[prefix] {
            keys = listed
        } else {
            keys = Set(try parent.lockedStore.withLock { try $0.keys(withPrefix: prefix) })
            outcome.listings[prefix] = keys
        }
        for (key, value) in outcome.writes where key.hasPrefix(prefix) {
            if value == nil { keys.remove(key) } else { keys.insert(key) }
        }
        return Array(keys)
    }
}
