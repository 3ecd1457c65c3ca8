import DAOKit
import DAOKitInternals
import DAOKitStoreFormat
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Transactions over a file store: the handle keeps what the body writes in memory, encoded as the
/// record files it will become, and reads through to the store around it; the commit writes every
/// record of every type it changed under one journal, so that it is all or nothing across a crash.
///
/// Isolation is optimistic and spans processes. Nobody waits for a transaction: while its body
/// runs it holds no lock, and readers and writers in every process go on. It notes where the
/// store's change log (`.changes`, which every write appends to before it changes a record) stood
/// when it first touched each entity type, by a read or a write. The commit, under the store's
/// exclusive lock, reads what was appended since: when another writer — a thread, another context
/// on the directory, another process — changed a type the transaction read or wrote after it
/// first touched it, the commit throws ``StorageError/Kind/transactionConflict(_:)`` naming the
/// type and writes nothing (run it again). Otherwise it writes, still under that lock: the journal
/// of every record it replaces, of every type, then the records, then the journal cleared — the
/// commit point. A crash before that point is rolled back whole, every type, by the next reader,
/// writer or open in any process. The change log is restarted when it grows past its bound (about
/// 8,000 changed records): a transaction running across a restart cannot tell what changed, and
/// reports a conflict.
extension FileStorageContext: TransactionalStorageContext, TransactionSteps {
    /// Runs `body` with a handle on a new transaction and commits what it wrote, all types at
    /// once and crash-safely, when it returns. ``BaseDao``s made on the handle read their own
    /// writes, queries and counts included (a query of a type the transaction wrote reads every
    /// record of the type); readers of the store, in any process, see none of them until the
    /// commit. Called on a handle, it nests: a savepoint, whose error undoes only what the nested
    /// body wrote, and while it is open the outer handle refuses every call with
    /// ``StorageError/Kind/transactionConflict(_:)``. ``reset()`` on a handle throws
    /// ``StorageError/Kind/unsupported(_:)``.
    /// - Throws: what `body` throws, with nothing written;
    ///   ``StorageError/Kind/transactionConflict(_:)`` when another writer, in any process,
    ///   changed an entity type the transaction read or wrote after it first touched it (nothing
    ///   written; run it again); ``StorageError`` of kind `.io` naming the path when the commit
    ///   cannot write (a full disk: nothing of the transaction stays, also after a crash), and the
    ///   errors ``save(_:mode:)`` throws for the records it writes;
    ///   ``StorageError/Kind/transactionClosed`` on a handle whose transaction ended.
    public func transaction<Result>(_ body: (FileStorageContext) throws -> Result) throws -> Result {
        try runTransaction(body)
    }

    /// The `async` form of `transaction(_:)`: the same transaction and errors.
    /// - Throws: as `transaction(_:)`.
    public func transaction<Result: Sendable>(
        _ body: @Sendable (FileStorageContext) async throws -> Result
    ) async throws -> Result {
        try await runTransaction(body)
    }

    package func beginTransaction() throws -> FileStorageContext {
        if let handleTransaction {
            return FileStorageContext(transactionOn: self, transaction: try handleTransaction.beginNested())
        }
        return FileStorageContext(transactionOn: self, transaction: FileTransaction(store: self))
    }

    package func commitTransaction(_ handle: FileStorageContext) throws {
        guard let ended = handle.handleTransaction else { return }
        if ended.outer != nil {
            try ended.commitIntoOuter()
            return
        }
        guard let writes = ended.close() else { return }
        let changed = try commit(writes, watch: ended.watch)
        if !changed.isEmpty { notifier.post(contentsOf: changed.sorted().map(StorageChange.entity)) }
    }

    package func abandonTransaction(_ handle: FileStorageContext) {
        guard let ended = handle.handleTransaction else { return }
        if ended.outer != nil {
            ended.abandonNested()
        } else {
            _ = ended.close()
        }
    }

    // MARK: - Commit

    /// Writes what a transaction buffered, under the exclusive lock, after checking that nobody
    /// changed what it touched; returns the names of the entity types it changed.
    private func commit(_ writes: FileTransaction.Writes, watch: TransactionWatch) throws -> [String] {
        if writes.types.isEmpty && !watch.hasTouched { return [] }
        return try mapErrors(entityName: nil, key: nil) {
            try withWriteLock { () throws -> [String] in
                if let conflict = watch.conflictAtCommit() { throw conflict }
                var groups: [FolderChanges] = []
                for directoryName in writes.order {
                    guard let typeWrites = writes.types[directoryName] else { continue }
                    var changes = typeWrites.order.compactMap { typeWrites.changes[$0] }
                    if typeWrites.cleared {
                        // Every committed record the transaction did not write again goes.
                        for name in try recordFileNames(in: typeWrites.directory.path)
                        where typeWrites.changes[name] == nil {
                            changes.append(
                                RecordChange(key: key(fromFileName: name) ?? name, fileName: name, contents: nil))
                        }
                    }
                    if changes.isEmpty { continue }
                    groups.append(
                        FolderChanges(
                            entityName: typeWrites.entityName, directory: typeWrites.directory, changes: changes,
                            versioning: typeWrites.versioning))
                }
                if groups.isEmpty { return [] }
                let logged = try changeLog.append(
                    records: groups.map { ($0.directory.name, $0.changes.map(\.fileName)) })
                changeMonitor.noteOwnLines(logged)
                if groups.count == 1 && groups[0].changes.count == 1 {
                    let group = groups[0]
                    try writeSingle(
                        group.changes[0], directoryPath: group.directory.path, entityName: group.entityName,
                        versioning: group.versioning)
                } else {
                    try writeBatch(groups)
                }
                return groups.map(\.entityName)
            }
        }
    }

    /// Whether the record file `name` of `entityName` is stored, as committed.
    func committedRecordExists(entityName: String, fileName name: String) throws -> Bool {
        let path = recordPath(entityName: entityName, fileName: name)
        return try mapErrors(entityName: entityName, key: nil) {
            try withReadLock(entityName: entityName) { pending in
                if let kept = pending?.contents(of: name) {
                    if case .absent = kept { return false }
                    return true
                }
                return try fileSystem.status(atPath: path) != nil
            }
        }
    }

    /// The names of the committed record files of `entityName`.
    func committedRecordFileNames(entityName: String) throws -> [String] {
        let directoryPath = entityDirectoryPath(entityName)
        return try mapErrors(entityName: entityName, key: nil) {
            try withReadLock(entityName: entityName) { pending in
                try recordFileNames(in: directoryPath, around: pending)
            }
        }
    }

    /// The committed record files of `entityName`, with their contents.
    func committedRecordFiles(entityName: String) throws -> [(name: String, contents: FileContents)] {
        let directoryPath = entityDirectoryPath(entityName)
        return try mapErrors(entityName: entityName, key: nil) {
            try withReadLock(entityName: entityName) { pending in
                try recordFiles(in: directoryPath, around: pending)
            }
        }
    }

    func recordPath(entityName: String, fileName name: String) -> String {
        entityDirectory(entityName).path + "/" + name
    }
}

// MARK: - The transaction

/// A transaction of a ``FileStorageContext``: its writes, buffered per entity type and record
/// file, and what it touched. Every call of its handle goes through it; it reads the store through
/// ``store``, the context outside every transaction. A nested transaction starts from a copy of
/// its outer one's writes and hands them back when it commits (a savepoint).
final class FileTransaction: Sendable {
    /// The writes to one entity type.
    struct TypeWrites: Sendable {
        let entityName: String
        let directory: EntityDirectory
        /// Whether the transaction removed every record of the type (`deleteAll`) before `changes`.
        var cleared = false
        /// Record file name → the change, the latest write winning.
        var changes: [String: RecordChange] = [:]
        /// The file names of `changes`, in the order first written.
        var order: [String] = []
        /// The versioning of the type the transaction saved, for the commit's check of records
        /// a newer version wrote; `nil` when it only removed.
        var versioning: EntityVersioning?

        init(entityName: String, directory: EntityDirectory) {
            self.entityName = entityName
            self.directory = directory
        }

        mutating func record(_ change: RecordChange) {
            var change = change
            if cleared {
                change.removedFirst = true
            } else if let earlier = changes[change.fileName] {
                change.removedFirst = earlier.removedFirst || earlier.contents == nil
            }
            if changes.updateValue(change, forKey: change.fileName) == nil { order.append(change.fileName) }
        }
    }

    /// Everything a transaction wrote, by entity directory name.
    struct Writes: Sendable {
        var types: [String: TypeWrites] = [:]
        /// The directory names of `types`, in the order first written.
        var order: [String] = []
    }

    private struct State: Sendable {
        var writes = Writes()
        var isOpen = true
        /// Whether a nested transaction is open on this one (its handle is refused meanwhile).
        var nestedOpen = false
    }

    let store: FileStorageContext
    let outer: FileTransaction?
    let watch: TransactionWatch
    private let state: Locked<State>

    init(store: FileStorageContext) {
        self.store = store
        outer = nil
        watch = TransactionWatch()
        state = Locked(State())
    }

    private init(nestedIn outer: FileTransaction, writes: Writes) {
        store = outer.store
        self.outer = outer
        watch = outer.watch
        state = Locked(State(writes: writes))
    }

    // MARK: Steps

    func beginNested() throws -> FileTransaction {
        let writes = try state.withLock { state -> Writes in
            try Self.checkUsable(state)
            state.nestedOpen = true
            return state.writes
        }
        try outer?.checkAlive()
        return FileTransaction(nestedIn: self, writes: writes)
    }

    /// Ends the transaction; its writes when it was still open.
    func close() -> Writes? {
        state.withLock { state -> Writes? in
            guard state.isOpen else { return nil }
            state.isOpen = false
            defer { state.writes = Writes() }
            return state.writes
        }
    }

    /// Hands a nested transaction's writes to its outer one.
    func commitIntoOuter() throws {
        guard let outer else { return }
        guard let writes = close() else { return }
        try outer.state.withLock { state in
            guard state.isOpen else { throw StorageError(.transactionClosed) }
            state.writes = writes
            state.nestedOpen = false
        }
    }

    func abandonNested() {
        _ = close()
        outer?.state.withLock { $0.nestedOpen = false }
    }

    private static func checkUsable(_ state: State) throws {
        if !state.isOpen { throw StorageError(.transactionClosed) }
        if state.nestedOpen {
            throw StorageError(
                .transactionConflict("a nested transaction is open: use its handle until its body returns"))
        }
    }

    /// Throws ``StorageError/Kind/transactionClosed`` when this transaction or one it is nested
    /// in has ended.
    private func checkAlive() throws {
        if !state.withLock({ $0.isOpen }) { throw StorageError(.transactionClosed) }
        try outer?.checkAlive()
    }

    /// The writes so far, once the transaction is known to be usable.
    private func currentWrites() throws -> Writes {
        let writes = try state.withLock { state -> Writes in
            try Self.checkUsable(state)
            return state.writes
        }
        try outer?.checkAlive()
        return writes
    }

    private func update(_ body: (inout Writes) -> Void) throws {
        try state.withLock { state in
            try Self.checkUsable(state)
            body(&state.writes)
        }
        try outer?.checkAlive()
    }

    /// Notes that the transaction touches `E`'s records, before it reads or writes them.
    private func touch<E: Storable>(_ type: E.Type) throws -> EntityDirectory {
        let directory = store.entityDirectory(E.entityName)
        try watch.touch(directory.name, entityName: E.entityName, in: store)
        return directory
    }

    // MARK: Reading

    func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? {
        let writes = try currentWrites()
        let directory = try touch(E.self)
        if let typeWrites = writes.types[directory.name] {
            let name = store.fileName(forKey: id.storageKey)
            if let change = typeWrites.changes[name] {
                guard let data = change.contents else { return nil }
                return try store.decodeRecordFile(
                    E.self, name: name, contents: .bytes(data), directoryPath: directory.path)?.entity
            }
            if typeWrites.cleared { return nil }
        }
        return try store.fetch(type, id: id)
    }

    /// The record files of a type the transaction wrote, as it sees them: the committed ones
    /// (none after its `deleteAll`) with its own writes over them.
    private func files(of typeWrites: TypeWrites) throws -> [(name: String, contents: FileContents)] {
        var files: [(name: String, contents: FileContents)] = []
        if !typeWrites.cleared {
            for file in try store.committedRecordFiles(entityName: typeWrites.entityName)
            where typeWrites.changes[file.name] == nil {
                files.append(file)
            }
        }
        for name in typeWrites.order {
            if let data = typeWrites.changes[name]?.contents { files.append((name, .bytes(data))) }
        }
        return files
    }

    func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] {
        let writes = try currentWrites()
        let directory = try touch(E.self)
        guard let typeWrites = writes.types[directory.name] else { return try store.fetchAll(type) }
        _ = try EntityVersioning.of(E.self)
        return try store.decodeRecordFiles(E.self, try files(of: typeWrites), directoryPath: directory.path)
    }

    func count<E: Storable>(_ type: E.Type) throws -> Int {
        let writes = try currentWrites()
        let directory = try touch(E.self)
        guard let typeWrites = writes.types[directory.name] else { return try store.count(type) }
        var names = Set<String>()
        if !typeWrites.cleared {
            names.formUnion(try store.committedRecordFileNames(entityName: E.entityName))
        }
        for (name, change) in typeWrites.changes {
            if change.contents == nil { names.remove(name) } else { names.insert(name) }
        }
        return names.count
    }

    func fetchReadable<E: Storable>(_ type: E.Type) throws -> ReadableRecords<E, E.ID> {
        let writes = try currentWrites()
        let directory = try touch(E.self)
        guard let typeWrites = writes.types[directory.name] else { return try store.fetchReadable(type) }
        return try store.readable(E.self, files: try files(of: typeWrites), directoryPath: directory.path)
    }

    func fetchOlderRecords<E: Storable>(_ type: E.Type, olderThan version: Int) throws -> ReadableRecords<E, E.ID> {
        let writes = try currentWrites()
        let directory = try touch(E.self)
        guard let typeWrites = writes.types[directory.name] else { return try store.fetchOlderRecords(type) }
        return try store.readable(
            E.self, files: try files(of: typeWrites), directoryPath: directory.path, olderThan: version)
    }

    func storedKeys<E: Storable>(_ type: E.Type) throws -> [String] {
        let writes = try currentWrites()
        let directory = try touch(E.self)
        guard let typeWrites = writes.types[directory.name] else { return try store.storedKeys(type) }
        var keys: [String] = []
        if !typeWrites.cleared {
            keys = try store.storedKeys(type).filter { typeWrites.changes[store.fileName(forKey: $0)] == nil }
        }
        for name in typeWrites.order {
            if let change = typeWrites.changes[name], change.contents != nil { keys.append(change.key) }
        }
        return keys
    }

    /// Whether the transaction wrote `E`: its reads then answer from every record, merged.
    private func wrote<E: Storable>(_ type: E.Type) throws -> Bool {
        let writes = try currentWrites()
        let directory = try touch(E.self)
        return writes.types[directory.name] != nil
    }

    func fetch<E: Storable>(_ type: E.Type, matching query: StorageQuery) throws -> [E] {
        try query.validate(entityName: E.entityName)
        // A type the transaction wrote is answered from a scan of what it sees, never from the
        // query cache, which holds committed records only and must not take in uncommitted ones.
        guard try wrote(E.self) else { return try store.fetch(type, matching: query) }
        return try query.apply(to: try fetchAll(type))
    }

    func count<E: Storable>(_ type: E.Type, matching filter: StorageFilter) throws -> Int {
        guard try wrote(E.self) else { return try store.count(type, matching: filter) }
        return try QueryEvaluator(StorageQuery(filter: filter)).count(in: try fetchAll(type))
    }

    func delete<E: Storable>(_ type: E.Type, matching filter: StorageFilter) throws {
        let keys = try fetch(type, matching: StorageQuery(filter: filter)).map(\.id.storageKey)
        if keys.isEmpty { return }
        try delete(type, storageKeys: keys)
    }

    func explain<E: Storable>(_ query: StorageQuery, counting: Bool, for type: E.Type) throws -> StorageAccess {
        guard try wrote(E.self) else { return try store.explain(query, counting: counting, for: type) }
        return StorageAccess(scansEveryRecord: true)
    }

    // MARK: Writing

    func save<E: Storable>(_ entities: [E], mode: SaveMode) throws {
        _ = try currentWrites()
        guard !entities.isEmpty else { return }
        let entityName = E.entityName
        let versioning = try EntityVersioning.of(E.self)
        let directory = store.entityDirectory(entityName)
        // Encoded now, as the commit writes them: what the body reads back is what will be stored.
        var changes: [RecordChange] = []
        var keys: [String] = []
        keys.reserveCapacity(entities.count)
        // When one id appears twice, the later entity wins, as in a batch.
        var positions: [String: Int] = [:]
        for entity in entities {
            let key = entity.id.storageKey
            keys.append(key)
            let name = store.fileName(forKey: key)
            do {
                let change = RecordChange(
                    key: key, fileName: name, contents: try store.codec.encode(entity, key: key, versioning: versioning)
                )
                if let position = positions[name] {
                    changes[position] = change
                } else {
                    positions[name] = changes.count
                    changes.append(change)
                }
            } catch {
                throw StorageError(
                    .encodingFailed, entityName: entityName, key: key, location: directory.path + "/" + name,
                    underlyingError: error)
            }
        }
        _ = try touch(E.self)
        let typeWrites = try currentWrites().types[directory.name]
        if mode != .upsert {
            try SaveModeCheck.validate(keys: keys, entityName: entityName, mode: mode) { position in
                let name = store.fileName(forKey: keys[position])
                if let change = typeWrites?.changes[name] { return change.contents != nil }
                if typeWrites?.cleared == true { return false }
                return try store.committedRecordExists(entityName: entityName, fileName: name)
            }
        }
        // Unique indexes are checked against what the transaction sees, its writes included; what
        // another writer stores meanwhile makes the commit a conflict, so the check stays true.
        let unique = StoredUniqueValues(indexes: E.indexes)
        if !unique.isEmpty {
            let existing =
                try typeWrites.map { try files(of: $0) } ?? store.committedRecordFiles(entityName: entityName)
            try store.mapErrors(entityName: entityName, key: nil) {
                try store.checkUnique(
                    changes, unique: unique, entityName: entityName, directoryPath: directory.path, existing: existing)
            }
        }
        try update { writes in
            var typeWrites =
                writes.types[directory.name] ?? TypeWrites(entityName: entityName, directory: directory)
            if writes.types[directory.name] == nil { writes.order.append(directory.name) }
            for change in changes { typeWrites.record(change) }
            typeWrites.versioning = versioning
            writes.types[directory.name] = typeWrites
        }
    }

    func delete<E: Storable>(_ type: E.Type, storageKeys: [String]) throws {
        _ = try currentWrites()
        guard !storageKeys.isEmpty else { return }
        let directory = try touch(E.self)
        let removals = storageKeys.map { RecordChange(key: $0, fileName: store.fileName(forKey: $0), contents: nil) }
        try update { writes in
            var typeWrites =
                writes.types[directory.name] ?? TypeWrites(entityName: E.entityName, directory: directory)
            if writes.types[directory.name] == nil { writes.order.append(directory.name) }
            for removal in removals { typeWrites.record(removal) }
            writes.types[directory.name] = typeWrites
        }
    }

    func deleteAll<E: Storable>(_ type: E.Type) throws {
        _ = try currentWrites()
        let directory = try touch(E.self)
        try update { writes in
            if writes.types[directory.name] == nil { writes.order.append(directory.name) }
            var cleared = TypeWrites(entityName: E.entityName, directory: directory)
            cleared.cleared = true
            writes.types[directory.name] = cleared
        }
    }
}

// MARK: - Conflicts

/// Where the store's change log stood when a transaction first touched each entity type, to tell
/// at the commit whether another writer changed one since (see the extension's description).
/// Shared by a transaction and the ones nested in it.
final class TransactionWatch: Sendable {
    /// Sound as `Sendable`: the reader is only used under the lock.
    private struct State: @unchecked Sendable {
        var reader: ChangeLogReader?
        /// The entity directories touched so far, and their entity names.
        var touched: [String: String] = [:]
        /// The first conflict found: the entity name (`nil`: unknown, the log restarted).
        var conflict: String??
    }

    private let state = Locked(State())

    var hasTouched: Bool { state.withLock { !$0.touched.isEmpty } }

    /// Notes, under the store's shared lock, that the transaction touches the entity directory
    /// `directoryName`, unless it did already; what the log shows since the last look is checked
    /// against the types touched before.
    func touch(_ directoryName: String, entityName: String, in store: FileStorageContext) throws {
        if state.withLock({ $0.touched[directoryName] != nil }) { return }
        try store.mapErrors(entityName: entityName, key: nil) {
            try store.withReadLock(entityName: entityName) { _ in
                state.withLock { state in
                    guard state.touched[directoryName] == nil else { return }
                    if let reader = state.reader {
                        Self.absorb(reader.changes(), into: &state)
                    } else {
                        let reader = ChangeLogReader(store.changeLog)
                        reader.startAtEnd()
                        state.reader = reader
                    }
                    state.touched[directoryName] = entityName
                }
            }
        }
    }

    /// The conflict to report, reading what the log shows since the last look; call under the
    /// store's exclusive lock. `nil` when nobody changed what the transaction touched.
    func conflictAtCommit() -> StorageError? {
        state.withLock { state -> StorageError? in
            if let reader = state.reader { Self.absorb(reader.changes(), into: &state) }
            guard let conflict = state.conflict else { return nil }
            guard let entityName = conflict else {
                return StorageError(
                    .transactionConflict(
                        "the store's change log was restarted while the transaction ran, so it cannot tell "
                            + "whether another writer changed what it read"))
            }
            return StorageError(
                .transactionConflict("another writer changed \(entityName) while the transaction ran"),
                entityName: entityName)
        }
    }

    private static func absorb(_ changes: ChangeLogReader.Changes, into state: inout State) {
        guard state.conflict == nil else { return }
        switch changes {
        case .none:
            return
        case .everything:
            state.conflict = .some(nil)
        case .records(let records):
            for (directoryName, _) in records {
                if let entityName = state.touched[directoryName] {
                    state.conflict = .some(entityName)
                    return
                }
            }
        }
    }
}
