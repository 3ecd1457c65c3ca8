import DAOKit
import DAOKitInternals
import DAOKitStoreFormat
import Foundation

extension FileStorageContext {
    /// How many decoded entities a ``FileStorageContext`` keeps in memory to answer queries.
    ///
    /// The first query for an entity type reads and decodes its records (what a scan costs) and
    /// keeps them, with the indexes the type declares, as ``InMemoryStorageContext`` does; later
    /// queries answer from memory after checking the store's change log (one `fstat`) and
    /// rereading only the records another process changed since. This context's own writes update
    /// what it keeps as they commit. Memory: each kept entity costs its decoded size plus about
    /// 100 bytes, and what ``InMemoryStorageContext`` spends on its indexes.
    public struct QueryCache: Sendable, Hashable {
        /// The most entities of one type kept; a type with more is scanned on every query.
        public let maximumRecordsPerType: Int

        /// Keeps every entity queried.
        public static let unbounded = QueryCache(maximumRecordsPerType: .max)
        /// Keeps nothing: every query reads every record of its type, as `fetchAll` does.
        public static let disabled = QueryCache(maximumRecordsPerType: 0)

        /// Keeps at most `count` entities of each type; a type with more is scanned.
        /// - Precondition: `count >= 0`.
        public static func records(_ count: Int) -> QueryCache {
            precondition(count >= 0, "QueryCache.records needs a count >= 0 (got \(count))")
            return QueryCache(maximumRecordsPerType: count)
        }

        private init(maximumRecordsPerType: Int) {
            self.maximumRecordsPerType = maximumRecordsPerType
        }
    }
}

/// What a ``FileStorageContext`` keeps for queries: per entity directory, the decoded entities of
/// one type in an ``InMemoryTable``, and where it is in the ``ChangeLog``.
///
/// Lock order: the store's lock (shared or exclusive) first, then this cache's; never the other
/// way round. Everything here happens with both held, so the entities kept always match the
/// records as of the last change-log position read.
final class FileQueryCache: Sendable {
    let policy: FileStorageContext.QueryCache
    /// How record files are named, to read a key back from a file name.
    private let format: FileStorageContext.RecordFormat
    private let state: Locked<State>

    /// Sound as `Sendable`: the tables hold entities this cache decoded and never hands out
    /// (queries get copies), and everything is only touched under the lock.
    private struct State {
        var tables: [String: CachedTable] = [:]
        let reader: ChangeLogReader
        /// The order the next new key gets in a table (see ``InMemoryRecord/order``).
        var nextOrder: UInt64 = 0
    }

    /// One entity directory's kept entities.
    struct CachedTable {
        /// The entity type they were decoded as; a query for another type does not use them.
        let type: ObjectIdentifier
        var table: InMemoryTable
        /// File name → storage key of the records whose file name does not spell the key out
        /// (hashed names), to drop a record the log names without reading it; every other
        /// record's key is read back from its name (``key(ofFileName:format:)``), which spares
        /// the first query a dictionary entry per record.
        var keysOfHashedNames: [String: String] = [:]
        /// Records the log named that have not been reread yet (`nil`: all of them).
        var pending: Set<String>? = []

        /// The key of the record kept from the file `name`, if there can be one.
        func key(ofFileName name: String, format: FileStorageContext.RecordFormat) -> String? {
            if let key = keysOfHashedNames[name] { return key }
            // Only a name the key is written as: a record is only ever kept from its key's file.
            guard let key = format.key(fromFileName: name), format.fileName(forKey: key) == name else { return nil }
            return key
        }

        /// Notes that the file `name` holds the record of `key`.
        mutating func note(_ name: String, holds key: String, spelledOut: Bool) {
            if !spelledOut { keysOfHashedNames[name] = key }
        }
    }

    init(policy: FileStorageContext.QueryCache, format: FileStorageContext.RecordFormat, changeLog: ChangeLog) {
        self.policy = policy
        self.format = format
        state = Locked(State(reader: ChangeLogReader(changeLog)))
    }

    var isEnabled: Bool { policy.maximumRecordsPerType > 0 }

    /// Runs `body` on the up-to-date table of `E`, loading or refreshing it from `context` first;
    /// `nil` when the type is not kept (over the policy's bound, a record that does not decode, or
    /// another type kept under its name), and the caller scans instead. Call under the store's
    /// shared or exclusive lock.
    func withTable<E: Storable, T>(
        _ type: E.Type, in context: FileStorageContext, _ body: (inout InMemoryTable) throws -> T
    ) throws -> T? {
        let directory = context.entityDirectory(E.entityName)
        return try state.withLock { state -> T? in
            switch state.reader.changes() {
            case .none: break
            case .everything: state.tables.removeAll()
            case .records(let changes):
                for (directoryName, fileName) in changes where state.tables[directoryName] != nil {
                    if let fileName {
                        state.tables[directoryName]!.pending?.insert(fileName)
                    } else {
                        state.tables[directoryName]!.pending = nil
                    }
                }
            }
            if let cached = state.tables[directory.name], cached.type != ObjectIdentifier(E.self) { return nil }
            if state.tables[directory.name]?.pending == nil {
                state.tables[directory.name] = nil
                guard let loaded = try load(E.self, from: context, directory: directory, order: &state.nextOrder) else {
                    return nil
                }
                state.tables[directory.name] = loaded
            } else if !state.tables[directory.name]!.pending!.isEmpty {
                let ok = try reread(
                    E.self, in: &state.tables[directory.name]!, from: context, directory: directory,
                    order: &state.nextOrder)
                if !ok {
                    state.tables[directory.name] = nil
                    return nil
                }
            }
            return try body(&state.tables[directory.name]!.table)
        }
    }

    /// How many record files the first query reads before decoding them. Reading and decoding
    /// in runs rather than in turn keeps each one's code and data in the processor's caches (the
    /// system calls of a read evict the decoder's, and the other way round), for a few dozen files'
    /// bytes held at once (the gain is in `Benchmarks/RESULTS.md`).
    static let readBatch = 64

    /// Reads and decodes every record of `E`; `nil` when there are more than the policy keeps or
    /// one does not decode. The table is loaded record by record, its indexes left to be sorted
    /// once each, when a query first walks one.
    ///
    /// The records are opened by name in their directory, open once, so the system resolves one
    /// component per record rather than the whole path below the store's root.
    private func load<E: Storable>(
        _ type: E.Type, from context: FileStorageContext, directory: EntityDirectory, order: inout UInt64
    ) throws -> CachedTable? {
        let names = try context.recordFileNames(in: directory.path)
        guard names.count <= policy.maximumRecordsPerType else { return nil }
        let layout = IndexLayout.of(E.self)
        guard let directoryFD = try context.openEntityDirectory(directory.path, creating: false) else {
            // Gone since the listing: no records, as a listing now would say.
            return CachedTable(type: ObjectIdentifier(E.self), table: InMemoryTable(layout: layout))
        }
        defer { try? context.fileSystem.close(directoryFD, path: directory.path) }
        var keysOfHashedNames: [String: String] = [:]
        // Each record goes straight into the table as it is decoded: no list of them in between,
        // whose copies would retain and release every entity and its values once more.
        var loader = InMemoryTable.Loader(layout: layout, capacity: names.count)
        var batch: [FileContents] = []
        batch.reserveCapacity(Self.readBatch)
        for start in stride(from: 0, to: names.count, by: Self.readBatch) {
            let batchNames = names[start..<min(start + Self.readBatch, names.count)]
            batch.removeAll(keepingCapacity: true)
            for name in batchNames {
                batch.append(
                    try context.fileSystem.readContents(of: name, in: directoryFD, path: directory.path + "/" + name))
            }
            for (name, contents) in zip(batchNames, batch) {
                let decoded: (key: String, entity: E, nameSpellsKey: Bool)?
                do {
                    decoded = try context.decodeRecordFile(
                        E.self, name: name, contents: contents, directoryPath: directory.path)
                } catch {
                    return nil
                }
                guard let (key, entity, spelledOut) = decoded else { continue }  // removed since the listing
                guard let values = try? layout.values(of: entity) else { return nil }
                if !spelledOut { keysOfHashedNames[name] = key }
                loader.add(entity, values: values, forKey: key, order: &order)
            }
        }
        return CachedTable(type: ObjectIdentifier(E.self), table: loader.finish(), keysOfHashedNames: keysOfHashedNames)
    }

    /// Rereads the records the log named since the table was loaded; `false` when one does not
    /// decode (the table must go).
    private func reread<E: Storable>(
        _ type: E.Type, in cached: inout CachedTable, from context: FileStorageContext, directory: EntityDirectory,
        order: inout UInt64
    ) throws -> Bool {
        for name in cached.pending ?? [] {
            let contents = try context.fileSystem.readContents(of: directory.path + "/" + name)
            guard
                let ok = try? keep(
                    E.self, name: name, contents: contents, in: &cached, context: context, directory: directory,
                    order: &order),
                ok
            else { return false }
        }
        cached.pending = []
        return true
    }

    /// Puts what a record file holds into the table: the decoded entity, or nothing when it is gone.
    private func keep<E: Storable>(
        _ type: E.Type, name: String, contents: FileContents, in cached: inout CachedTable,
        context: FileStorageContext, directory: EntityDirectory, order: inout UInt64
    ) throws -> Bool {
        guard
            let (key, entity, spelledOut) = try context.decodeRecordFile(
                E.self, name: name, contents: contents,
                directoryPath: directory.path)
        else {
            if let key = cached.key(ofFileName: name, format: format) { _ = cached.table.remove(forKey: key) }
            cached.keysOfHashedNames[name] = nil
            return true
        }
        let values = try cached.table.layout.values(of: entity)
        cached.note(name, holds: key, spelledOut: spelledOut)
        if cached.table.store(entity, values: values, forKey: key, order: order) == nil { order &+= 1 }
        return true
    }

    // MARK: - Unique indexes

    /// Checks `write` against the unique indexes of the kept table of `E`, brought up to date from
    /// the change log first (see ``withTable(_:in:_:)``); `false` when the type is not kept, and
    /// the caller reads the records instead. Call under the exclusive lock, before the write logs
    /// its lines.
    /// - Throws: ``StorageError/Code/uniqueViolation`` (see ``InMemoryTable/checkUnique(_:entityName:)``).
    func checkUnique<E: Storable>(
        _ type: E.Type, write: PendingWrite, in context: FileStorageContext, entityName: String
    ) throws -> Bool {
        let batch = write.records.compactMap { record in record.entity.map { (key: record.key, values: $0.1) } }
        return try withTable(E.self, in: context) { table in try table.checkUnique(batch, entityName: entityName) }
            != nil
    }

    // MARK: - This context's own writes

    /// A write about to be made by this context, prepared before the store's lock is taken (it
    /// copies entities and reads their indexed fields: user code).
    struct PendingWrite {
        let directoryName: String
        let type: ObjectIdentifier
        /// File name → (key, copy of the entity and its indexed values), or `nil` for a removal.
        let records: [(fileName: String, key: String, entity: (any Storable, [StorageValue])?)]
    }

    /// Whether this cache keeps the entities of `E` from the entity directory `directoryName`, so
    /// that a write to it has something to ``prepare(_:directoryName:records:)``. A write asks
    /// before it gathers what it would prepare, which it then spares itself in the usual case of a
    /// type nobody has queried.
    ///
    /// A table loaded between this answer and the write's commit is not updated by the write; the
    /// next query rereads what the change log shows the write changed.
    func keeps<E: Storable>(_ type: E.Type, directoryName: String) -> Bool {
        isEnabled && state.withLock { $0.tables[directoryName]?.type == ObjectIdentifier(E.self) }
    }

    /// Prepares `entities` (or removals, for `nil`) for ``apply(_:logged:)``, for a write that
    /// asked ``keeps(_:directoryName:)`` first (which ``apply(_:logged:)`` checks again, under the
    /// lock, at the commit); `nil` when an entity cannot be copied, and the next query rereads it.
    func prepare<E: Storable>(
        _ type: E.Type, directoryName: String, records: [(fileName: String, key: String, entity: E?)]
    ) -> PendingWrite? {
        let layout = IndexLayout.of(E.self)
        let copier = EntityMapper()
        var prepared: [(fileName: String, key: String, entity: (any Storable, [StorageValue])?)] = []
        for record in records {
            guard let entity = record.entity else {
                prepared.append((record.fileName, record.key, nil))
                continue
            }
            guard let copy = try? copier.map(entity, to: E.self), let values = try? layout.values(of: copy) else {
                return nil
            }
            prepared.append((record.fileName, record.key, (copy, values)))
        }
        return PendingWrite(directoryName: directoryName, type: ObjectIdentifier(E.self), records: prepared)
    }

    /// Applies a committed write to the kept table, if the log shows that nothing else changed
    /// since this cache last looked (`logged` is where the write's lines start and end); otherwise
    /// leaves it to the next query, which rereads what the log names. Call under the exclusive lock.
    func apply(_ write: PendingWrite?, logged: Range<Int>?) {
        state.withLock { state in
            guard let write, let logged, var cached = state.tables[write.directoryName], cached.type == write.type,
                cached.pending?.isEmpty == true, state.reader.consume(logged)
            else { return }
            state.tables[write.directoryName] = nil  // changed in place below
            for record in write.records {
                if let (entity, values) = record.entity {
                    cached.note(
                        record.fileName, holds: record.key,
                        spelledOut: format.key(fromFileName: record.fileName) == record.key)
                    if cached.table.store(entity, values: values, forKey: record.key, order: state.nextOrder) == nil {
                        state.nextOrder &+= 1
                    }
                } else {
                    cached.keysOfHashedNames[record.fileName] = nil
                    _ = cached.table.remove(forKey: record.key)
                }
            }
            state.tables[write.directoryName] = cached
        }
    }
}
