import CSQLite
import DAOKit
import DAOKitSQL
import Foundation

/// A ``StorageContext`` in an SQLite database: the system's SQLite (the SDK's on Apple
/// platforms, libsqlite3 on Linux), with no package dependency.
///
/// Each entity type is a table, created on first write, with a column per top-level field (see
/// the DAOKit catalog's article "SQLite", "Layout"), readable with the `sqlite3` shell. ``Storable/indexes`` become SQL
/// indexes, and queries (``fetch(_:matching:)``, ``count(_:matching:)``,
/// ``delete(_:matching:)``) run in SQL with bound parameters wherever SQL answers exactly as
/// ``StorageFilter`` defines, and in Swift for the rest.
///
/// Durability: the database is in WAL mode with `synchronous = FULL`. A save returns after its
/// transaction is committed and the log synced: it survives a crash of the process and a loss of
/// power. A batch is one transaction, all or nothing across any crash.
///
/// Several processes may use one file at once: writes take SQLite's write lock up front
/// (`BEGIN IMMEDIATE`) and wait for another writer up to 30 seconds; past that the save throws a
/// ``StorageError`` whose ``StorageError/underlyingError`` is an ``SQLiteError`` with
/// `SQLITE_BUSY`, and nothing is written. Readers never wait for writers (WAL).
///
/// Safe to use from many threads: one connection, behind a lock. Entities are encoded before
/// the lock is taken; rows are decoded under it, so an `init(from:)` that calls the same context
/// gets ``StorageError/Kind/reentrantCall`` rather than a deadlock.
public final class SQLiteStorageContext: StorageContext {
    /// Sound as `Sendable`: the connection and the table cache are only touched inside the lock.
    /// A transaction's handle has its own (over a connection of its own), which a nested
    /// transaction's handle shares.
    let state: ContextLock<State>
    /// For a transaction's handle, the id of its transaction (or savepoint) in
    /// ``State/openTransactions``; `nil` for the context itself.
    let transactionID: UInt64?
    /// Where committed writes are announced; for a database file, other connections' commits too
    /// (``SQLiteDataVersionMonitor``).
    let notifier: StorageChangeNotifier
    /// The database file's path, or `:memory:`, for errors.
    public let location: String
    /// Whether saves store each row's checksum; `false` only for the benchmarks that measure what
    /// it costs (``init(file:writingChecksums:)``).
    let writesChecksums: Bool

    struct State {
        let connection: SQLiteConnection
        /// The tables known to exist, by entity name: updated only after a commit.
        var tables: [String: SQLiteTable] = [:]
        /// The context's connections kept for transactions, each idle (not in a transaction).
        var spareConnections: [SQLiteConnection] = []
        /// A transaction's connection: the open transaction and its open savepoints, outermost
        /// first; only the last one's handle may be used.
        var openTransactions: [UInt64] = []
        /// The entity types a transaction's handles wrote, and whether one reset the store.
        var written: Set<String> = []
        var wasReset = false
        /// Gives each transaction and savepoint its id.
        var nextTransactionID: UInt64 = 1
        /// What misses of `fetch` know of each table's key index, by entity name: the comparison
        /// of the index with the table that the connection's first miss on it made
        /// (``SQLiteKeyIndexCheck``), forgotten when another connection commits.
        var keyIndexChecks: [String: SQLiteKeyIndexCheck] = [:]
        /// The connection's `PRAGMA data_version` when `keyIndexChecks` were last known to hold.
        var keyIndexDataVersion: Int64?
        /// How many times this connection compared a key index with its table, for tests.
        var keyIndexComparisons = 0

        /// After this connection wrote to `entityName`'s table: a sound key index stays sound
        /// under SQLite's own writes, but one found damaged may hide other rows once SQLite
        /// rebalances it, so it is compared again at the next miss.
        mutating func wrote(_ entityName: String) {
            if keyIndexChecks[entityName]?.isSound == false { keyIndexChecks[entityName] = nil }
        }
    }

    /// Opens the database at `file`, creating it (and its directory's files `-wal` and `-shm`)
    /// when it does not exist, and the folders it is to be in when they do not exist either (as
    /// Application Support on a fresh install), as ``FileStorageContext`` creates its directory.
    /// - Throws: ``StorageError``: ``StorageError/Kind/corruptRecord(_:)`` when the file is not
    ///   an SQLite database or is damaged, ``StorageError/Kind/wrongFormat(_:)`` when it is
    ///   another application's database, ``StorageError/Kind/io(_:)`` when it cannot be opened
    ///   (naming SQLite's extended result code and message) or its folder cannot be created
    ///   (naming the folder). Each names the file.
    public convenience init(file: URL) throws {
        try Self.createFolder(of: file.path)
        try self.init(path: file.path, inMemory: false)
    }

    /// Benchmarks only, not API: opens the database as ``init(file:)`` does, but with
    /// `writingChecksums: false` saves rows without their checksum (a NULL `daokit_checksum`, as
    /// in rows of releases before checksums, which every release reads unchecked), so that the
    /// benchmarks can measure what the checksum costs against the same work without it. Nothing
    /// else may turn checksums off: a row written so is never checked.
    /// - Throws: as ``init(file:)``.
    @_spi(DAOKitBenchmarks)
    public convenience init(file: URL, writingChecksums: Bool) throws {
        try Self.createFolder(of: file.path)
        try self.init(path: file.path, inMemory: false, writesChecksums: writingChecksums)
    }

    /// Creates the folder that is to hold the database file `path`, and its missing parents.
    /// - Throws: ``StorageError/Kind/io(_:)`` naming the folder and why it cannot be created
    ///   (a file in its place, no permission).
    private static func createFolder(of path: String) throws {
        let folder = (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        if folder.isEmpty
            || FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) && isDirectory.boolValue
        {
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? error.localizedDescription
            throw StorageError(
                .io("cannot create the folder \(folder) for the database: \(reason)"), location: path,
                underlyingError: error)
        }
    }

    /// Opens a private database in memory, gone with the context.
    /// - Throws: ``StorageError`` when SQLite cannot allocate it.
    public convenience init() throws {
        try self.init(path: ":memory:", inMemory: true)
    }

    private init(path: String, inMemory: Bool, writesChecksums: Bool = true) throws {
        location = path
        self.writesChecksums = writesChecksums
        notifier =
            inMemory ? StorageChangeNotifier() : StorageChangeNotifier(monitor: SQLiteDataVersionMonitor(path: path))
        do {
            if !inMemory, let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber,
                size.intValue == 0
            {
                // SQLite takes an empty file for a new database, so a store truncated to nothing
                // would read as an empty one. A file DAOKit opened once never is empty (switching
                // to WAL writes the header to it), so an empty one is damage, or not DAOKit's.
                throw SQLiteError(
                    extendedResultCode: SQLITE_NOTADB,
                    message: "the database file is empty, as no store DAOKit opened ever is: it was truncated,"
                        + " or made by something else (remove it to start a new store)")
            }
            let connection = try SQLiteConnection(path: path)
            if !inMemory && !connection.isReadOnly {
                // Read back: a file that is not a database fails here, and WAL cannot be set on
                // some file systems, where SQLite keeps its rollback journal (still all or nothing).
                _ = try connection.scalar("PRAGMA journal_mode = WAL")
            }
            try connection.execute("PRAGMA synchronous = FULL")
            // SQLite checks each cell's size against its page when it loads the page, so that a
            // damaged page is an SQLITE_CORRUPT error rather than cells read past their bounds.
            try connection.execute("PRAGMA cell_size_check = ON")
            try SQLiteSchema.prepare(connection)
            state = ContextLock(State(connection: connection))
            transactionID = nil
        } catch let failure as SQLiteError {
            throw StorageError(sqlite: failure, entityName: nil, location: path)
        }
    }

    /// A transaction's handle: the transaction `id` on the connection that `state` holds.
    init(transactionOn state: ContextLock<State>, id: UInt64, of context: SQLiteStorageContext) {
        self.state = state
        transactionID = id
        location = context.location
        notifier = context.notifier
        writesChecksums = context.writesChecksums
    }

    // MARK: Writing

    /// Inserts or replaces `entities` by id, in one transaction.
    /// - Throws: ``StorageError``: ``StorageError/Kind/encodingFailed`` naming the entity that
    ///   cannot be encoded (before anything is written), or the SQLite failure; nothing is
    ///   written then.
    public func save<E: Storable>(_ entities: [E]) throws {
        try save(entities, mode: .upsert)
    }

    /// Saves `entities` as `mode` says, checking ids and writing in one transaction. The type's
    /// unique indexes are SQLite `UNIQUE` indexes, which SQLite keeps for every connection and
    /// process writing the file; a batch of a type with one is written as the removal of its
    /// stored rows and then their insertion, so that it is judged by the state it leaves.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/duplicateID``,
    ///   ``StorageError/Kind/missingID``, ``StorageError/Code/uniqueViolation`` (naming the
    ///   row that holds the values already; also at the first write after a unique index was
    ///   declared over rows that break it, naming two of them), ``StorageError/Kind/unsupported(_:)``
    ///   (a unique index on a nested field), ``StorageError/Kind/encodingFailed`` or an SQLite
    ///   failure; nothing is written then.
    public func save<E: Storable>(_ entities: [E], mode: SaveMode) throws {
        if entities.isEmpty { return }
        let entityName = try Self.checkedName(E.self)
        var keys: [String] = []
        var rows: [SQLiteEncodedRow] = []
        keys.reserveCapacity(entities.count)
        rows.reserveCapacity(entities.count)
        for entity in entities {  // user code (id, encode(to:)) runs before the lock
            let key = Self.normalized(entity.id.storageKey)
            do {
                rows.append(try SQLiteRowEncoder.row(of: entity))
            } catch {
                throw StorageError(
                    .encodingFailed, entityName: entityName, key: key, location: location, underlyingError: error)
            }
            keys.append(key)
        }
        let indexes = E.indexes
        let unique = indexes.filter(\.isUnique)
        let versioning = try EntityVersioning.of(E.self)
        let stamp = SQLiteEntityVersions.stamp(of: versioning)
        try withConnection(entityName: entityName) { state in
            let connection = state.connection
            defer { state.wrote(entityName) }
            var currentKey: String?
            do {
                let table = try connection.transaction(writing: true) { () throws -> SQLiteTable in
                    var table = try SQLiteSchema.prepareTable(
                        state.tables[entityName], entityName: entityName, rows: rows,
                        indexes: indexes, versioning: versioning, connection: connection)
                    try SaveModeCheck.validate(keys: keys, entityName: entityName, mode: mode) { position in
                        try Self.exists(keys[position], in: table, connection: connection)
                    }
                    // Fields the entity declares removed that a stored row holds stay in it.
                    let kept = try Self.keptValues(
                        of: keys, fields: versioning.keptFields, rows: rows, in: table, connection: connection)
                    if !unique.isEmpty && rows.count > 1 {
                        // The batch is judged by the state it leaves, as on every context: its
                        // stored rows go first, so that two of them may swap values (the unique
                        // index checks each row as it is written, not at the end).
                        // A row a newer version wrote stays, and its upsert below fails.
                        let delete = try connection.statement(
                            "DELETE FROM \(table.quotedName) WHERE daokit_key = ? AND "
                                + SQLiteEntityVersions.storedVersion(in: table.quotedName) + " <= ?")
                        for key in Set(keys) {
                            delete.reset()
                            _ = delete.bindText(key, at: 1)
                            try delete.bind(.integer(Int64(versioning.version)), at: 2)
                            try delete.run()
                        }
                    }
                    let statement = try connection.statement(table.upsertSQL)
                    let prefixes = writesChecksums ? table.columns.map(SQLiteRowChecksum.ColumnPrefix.init) : nil
                    for (position, row) in rows.enumerated() {
                        currentKey = keys[position]
                        try Self.bind(
                            row, key: keys[position], stamp: stamp, kept: kept[keys[position]] ?? [], to: statement,
                            columns: table.columns, prefixes: prefixes)
                        do {
                            try statement.run()
                            if connection.changes == 0 {
                                throw try newerRow(
                                    key: keys[position], versioning: versioning, in: table, connection: connection)
                            }
                        } catch {
                            guard let failure = error as? SQLiteError,
                                failure.extendedResultCode == SQLiteSchema.constraintUnique
                            else { throw error }
                            throw try Self.uniqueViolation(
                                of: row, key: keys[position], indexes: unique, in: table, connection: connection,
                                failure: failure)
                        }
                    }
                    if !unique.isEmpty {
                        try SQLiteSchema.ensureUniqueIndexes(unique, in: &table, connection: connection)
                    }
                    return table
                }
                state.tables[entityName] = table
            } catch let failure as SQLiteError {
                throw StorageError(sqlite: failure, entityName: entityName, key: currentKey, location: location)
            }
        }
        announce(entityName: entityName, storageKeys: keys)
    }

    /// The error of a save whose upsert changed nothing: the row under `key` was written by a
    /// newer version of the entity (``SQLiteTable/upsertSQL``), which this code must not replace.
    private func newerRow(
        key: String, versioning: EntityVersioning, in table: SQLiteTable, connection: SQLiteConnection
    ) throws -> StorageError {
        let statement = try connection.statement(
            "SELECT \(SQLiteEntityVersions.storedVersion(in: table.quotedName)) FROM \(table.quotedName) WHERE daokit_key = ?"
        )
        defer { statement.reset() }
        _ = statement.bindText(key, at: 1)
        let stored = try statement.step() ? Int(clamping: statement.integer(at: 0)) : versioning.version + 1
        return versioning.replacementRefused(storedVersion: stored, key: key, location: location)
    }

    /// The values that the stored rows under `keys` hold in `fields` (the entity's declared
    /// removed fields) and the rows to write do not, by key: what a save keeps (see
    /// ``EntityVersioning/keptFields``). Read before anything is written; nothing is read for an
    /// entity that removed no field.
    private static func keptValues(
        of keys: [String], fields: Set<String>, rows: [SQLiteEncodedRow], in table: SQLiteTable,
        connection: SQLiteConnection
    ) throws -> [String: [(column: Int, value: SQLiteValue)]] {
        if fields.isEmpty { return [:] }  // every save of an entity that removed nothing
        let columns = table.columns.enumerated().filter { fields.contains($0.element) }
        if columns.isEmpty { return [:] }
        let statement = try connection.statement(
            "SELECT \(columns.map { SQLiteDialect.quoted($0.element) }.joined(separator: ", ")) FROM \(table.quotedName) WHERE daokit_key = ?"
        )
        defer { statement.reset() }
        var kept: [String: [(column: Int, value: SQLiteValue)]] = [:]
        for (position, key) in keys.enumerated() {
            statement.reset()
            _ = statement.bindText(key, at: 1)
            guard try statement.step() else { continue }
            var values: [(column: Int, value: SQLiteValue)] = []
            for (offset, column) in columns.enumerated() where !rows[position].names.contains(column.element) {
                let value = statement.value(at: Int32(offset))
                if case .null = value { continue }
                values.append((column.offset, value))
            }
            if !values.isEmpty { kept[key] = values }
        }
        return kept
    }

    /// Binds a row's key, values, the values it keeps (`kept`, by column), checksum
    /// (``SQLiteRowChecksum``) and entity version (`stamp`, ``SQLiteEntityVersions``) to the
    /// upsert statement of a table with `columns`, whose checksum prefixes are `prefixes` (`nil`:
    /// no checksum, NULL).
    private static func bind(
        _ row: SQLiteEncodedRow, key: String, stamp: (version: SQLiteValue, readableFrom: SQLiteValue),
        kept: [(column: Int, value: SQLiteValue)], to statement: SQLiteStatement, columns: [String],
        prefixes: [SQLiteRowChecksum.ColumnPrefix]?
    ) throws {
        statement.reset()
        _ = statement.bindText(key, at: 1)
        var checksum = prefixes == nil ? 0 : SQLiteRowChecksum.keyContribution(key)
        var hint = 0
        for (position, name) in row.names.enumerated() {
            // Rows usually list fields in column order: try the next column before searching.
            let column: Int
            if hint < columns.count && columns[hint] == name {
                column = hint
            } else {
                column = columns.firstIndex(of: name)!  // prepareTable added every field
            }
            hint = column + 1
            if let prefixes { checksum ^= SQLiteRowChecksum.contribution(prefixes[column], row.values[position]) }
            try statement.bind(row.values[position], at: Int32(column + 2))
        }
        for (column, value) in kept {
            if let prefixes { checksum ^= SQLiteRowChecksum.contribution(prefixes[column], value) }
            try statement.bind(value, at: Int32(column + 2))
        }
        if prefixes != nil, case .integer = stamp.version {
            checksum ^= SQLiteEntityVersions.checksumContribution(of: stamp)
        }
        try statement.bind(prefixes == nil ? .null : .integer(Int64(checksum)), at: Int32(columns.count + 2))
        try statement.bind(stamp.version, at: Int32(columns.count + 3))
        try statement.bind(stamp.readableFrom, at: Int32(columns.count + 4))
    }

    /// The ``StorageError/Code/uniqueViolation`` of the row under `key`, which SQLite refused
    /// with `failure` (`SQLITE_CONSTRAINT_UNIQUE`): the first of `indexes` whose values another
    /// row holds, and that row's key, looked up inside the failing write's transaction.
    private static func uniqueViolation(
        of row: SQLiteEncodedRow, key: String, indexes: [StorageIndex], in table: SQLiteTable,
        connection: SQLiteConnection, failure: SQLiteError
    ) throws -> StorageError {
        for index in indexes {
            let names = index.fields.map { $0.keys[0] }
            var values: [SQLiteValue] = []
            for name in names {
                guard let position = row.names.firstIndex(of: name) else { break }
                if case .null = row.values[position] { break }
                values.append(row.values[position])
            }
            guard values.count == names.count else { continue }  // a NULL never collides
            let holders = try SQLiteSchema.holders(
                of: values, in: names.map(SQLiteDialect.quoted), excluding: key, limit: 1, table: table,
                connection: connection)
            if let holder = holders.first {
                return UniqueIndexViolation.error(
                    entityName: table.entityName, key: key, index: index, existingKey: holder)
            }
        }
        // SQLite saw a violation its lookup cannot find again (a value SQLite stores as NULL,
        // such as NaN, never collides): report it as SQLite did.
        throw failure
    }

    private static func exists(_ key: String, in table: SQLiteTable, connection: SQLiteConnection) throws -> Bool {
        let statement = try connection.statement("SELECT 1 FROM \(table.quotedName) WHERE daokit_key = ?")
        _ = statement.bindText(key, at: 1)
        defer { statement.reset() }
        return try statement.step()
    }

    /// Removes the entities with these ids, in one transaction; unknown ids are ignored.
    /// - Throws: ``StorageError`` with the SQLite failure; nothing is removed then.
    public func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) throws {
        if ids.isEmpty { return }
        try delete(type, storageKeys: ids.map(\.storageKey))
    }

    /// Removes every entity of the type.
    /// - Throws: ``StorageError`` with the SQLite failure.
    public func deleteAll<E: Storable>(_ type: E.Type) throws {
        let entityName = try Self.checkedName(E.self)
        try write(entityName: entityName) { table, connection in
            try connection.statement("DELETE FROM \(table.quotedName)").run()
        }
        announce(entityName: entityName, storageKeys: nil)
    }

    /// Removes every entity of every type in one transaction (the rows of every entity table; the
    /// tables, their indexes and DAOKit's own tables stay), and announces
    /// ``StorageChange/everything``.
    /// - Throws: ``StorageError`` with the SQLite failure; nothing is removed then.
    public func reset() throws {
        try withConnection(entityName: nil) { state in
            if transactionID != nil { state.wasReset = true }
            let connection = state.connection
            defer { state.keyIndexChecks = state.keyIndexChecks.filter { $0.value.isSound } }
            do {
                try connection.transaction(writing: true) {
                    let list = try connection.statement("SELECT name FROM sqlite_master WHERE type = 'table'")
                    var names: [String] = []
                    while try list.step() { names.append(list.text(at: 0)) }
                    list.reset()
                    for name in names {
                        let lowered = name.lowercased()
                        if lowered.hasPrefix(SQLiteSchema.reservedPrefix) || lowered.hasPrefix("sqlite_") { continue }
                        try connection.execute("DELETE FROM \(SQLiteDialect.quoted(name))")
                    }
                }
            } catch let failure as SQLiteError {
                throw StorageError(sqlite: failure, entityName: nil, location: location)
            }
        }
        if transactionID == nil { notifier.post(.everything) }
    }

    /// Where this context announces its committed writes, and, for a database file, other
    /// connections' commits noticed within about 100 ms (``SQLiteDataVersionMonitor``).
    /// `nil` for a transaction's handle: its writes are announced when the transaction commits.
    public var changeNotifier: StorageChangeNotifier? { transactionID == nil ? notifier : nil }

    // MARK: Reading

    /// The entity stored under `id`, or `nil`.
    ///
    /// The row is found through the key's index and must hold that key: a damaged index that
    /// leads to another row is reported, not read as this record. When the index has no entry
    /// for the key, `nil` is the answer only if no row of the table holds the key: a row a
    /// damaged index no longer leads to is reported, never silently missing. To know that
    /// without searching the table on every miss, the context's first miss on a table compares
    /// the key index with the table once (a scan of the table, and one index lookup per row),
    /// and remembers what it found until another connection — another context or process, a
    /// transaction — commits to the file; later misses cost one index lookup, as hits do.
    /// - Throws: ``StorageError``: ``StorageError/Kind/decodingFailed`` naming the record when
    ///   its row does not decode as `E`; ``StorageError/Kind/corruptRecord(_:)`` naming it when
    ///   its row's checksum does not match, the index leads to a row of another key, or the
    ///   table holds a row for the key that the index does not list; or the SQLite failure
    ///   (`SQLITE_CORRUPT` is a `corruptRecord` too).
    public func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? {
        let entityName = try Self.checkedName(E.self)
        let key = Self.normalized(id.storageKey)
        let versioning = try EntityVersioning.of(E.self)
        return try readWithState(entityName: entityName) { table, state in
            let connection = state.connection
            let statement = try connection.statement("SELECT * FROM \(table.quotedName) WHERE daokit_key = ?")
            defer { statement.reset() }
            _ = statement.bindText(key, at: 1)
            guard try statement.step() else {
                statement.reset()
                try self.confirmAbsent(key, in: table, entityName: entityName, state: &state)
                return nil
            }
            let reader = statement.rowReader()
            guard reader.keyEquals(key) else {
                throw StorageError(
                    .corruptRecord(SQLiteRowChecksum.indexLeadsElsewhere), entityName: entityName, key: key,
                    location: self.location)
            }
            return try self.decodeRow(
                E.self, reader: reader, versioning: versioning, entityName: entityName, key: key,
                connection: connection)
        } ?? nil
    }

    /// Throws when the table holds a row for `key` although its index found none: the index is
    /// damaged. Answers from the connection's comparison of the index with the table
    /// (``SQLiteKeyIndexCheck``), made at the first miss on the table and again after another
    /// connection committed.
    private func confirmAbsent(_ key: String, in table: SQLiteTable, entityName: String, state: inout State) throws {
        let connection = state.connection
        // Read after the lookup that missed: unchanged since the comparison, so no other
        // connection committed between the comparison and the lookup. (No version: compare on
        // every miss.)
        var version: Int64?
        if case .integer(let current)? = try connection.scalar("PRAGMA data_version") { version = current }
        if version == nil || version != state.keyIndexDataVersion {
            state.keyIndexChecks.removeAll()
            state.keyIndexDataVersion = version
        }
        let check: SQLiteKeyIndexCheck
        if let known = state.keyIndexChecks[entityName] {
            check = known
        } else {
            // A commit by another connection from here on changes the version, and the next
            // miss compares again.
            check = try SQLiteKeyIndexCheck(table: table, connection: connection)
            state.keyIndexComparisons += 1
            state.keyIndexChecks[entityName] = check
        }
        if !check.confirmsMiss(of: key) {
            throw StorageError(
                .corruptRecord(SQLiteRowChecksum.unlistedRow), entityName: entityName, key: key, location: location)
        }
    }

    /// How many times the context compared a table's key index with the table: once per table
    /// at its first miss, and again after another connection committed (see ``fetch(_:id:)``).
    /// For tests, which assert on the work a miss does.
    package var keyIndexComparisons: Int {
        (try? withConnection(entityName: nil) { $0.keyIndexComparisons }) ?? 0
    }

    /// The steps SQLite took in full scans of a table or an index, summed over the statements
    /// the context's connection holds prepared (it keeps every one): how tests see that an
    /// operation read no more rows than it returned, without timing it.
    package var fullScanSteps: Int {
        (try? withConnection(entityName: nil) { state in
            var steps = 0
            var statement = sqlite3_next_stmt(state.connection.handle, nil)
            while let current = statement {
                steps += Int(sqlite3_stmt_status(current, SQLITE_STMTSTATUS_FULLSCAN_STEP, 0))
                statement = sqlite3_next_stmt(state.connection.handle, current)
            }
            return steps
        }) ?? 0
    }

    /// Every stored entity of the type, in no particular order.
    /// - Throws: ``StorageError`` naming an undecodable record (several: one whose underlying
    ///   error is ``RecordFailures``), or the SQLite failure.
    public func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] {
        let readable = try fetchReadable(type)
        return try readable.valuesIfComplete(entityName: E.entityName, location: location)
    }

    /// How many entities of the type are stored.
    /// - Throws: ``StorageError`` with the SQLite failure.
    public func count<E: Storable>(_ type: E.Type) throws -> Int {
        let entityName = try Self.checkedName(E.self)
        return try read(entityName: entityName) { table, connection in
            guard case .integer(let count)? = try connection.scalar("SELECT count(*) FROM \(table.quotedName)") else {
                return 0
            }
            return Int(count)
        } ?? 0
    }

    // MARK: Shared steps

    /// Decodes the row the reader's statement stands on as `E`, after checking its checksum,
    /// resolving a row of an older version through `versioning` (``SQLiteEntityVersions``).
    func decodeRow<E: Storable>(
        _ type: E.Type, reader: SQLiteRowReader, versioning: EntityVersioning, entityName: String, key: String,
        connection: SQLiteConnection
    ) throws -> E {
        reader.loadRow()
        guard reader.rowIsIntact else {
            throw StorageError(
                .corruptRecord(SQLiteRowChecksum.mismatch), entityName: entityName, key: key.isEmpty ? reader.key : key,
                location: location)
        }
        let plan = try SQLiteEntityVersions.plan(
            of: reader, versioning: versioning, entityName: entityName, key: key, location: location)
        do {
            let kinds = { try SQLiteSchema.kinds(of: entityName, connection: connection) }
            guard let plan else { return try SQLiteRowDecoding.decode(E.self, reader: reader, kinds: kinds) }
            if plan.crossesMigrationStep {
                // A migration step reads the whole record: from the JSON object the row spells,
                // whose kinds tell a Bool from an integer (the row's own decoder cannot).
                // The key from the row as loaded (see SQLiteRowReader's `row` for why not `reader.key`).
                return try ResolvedDecoding.decode(E.self, plan: plan, key: key.isEmpty ? reader.text(0) : key) {
                    try SQLiteRowDecoding.decodeThroughJSON($0, reader: reader, kinds: try kinds())
                }
            }
            return try SQLiteRowDecoding.decode(E.self, reader: reader, plan: plan, kinds: kinds)
        } catch let error as StorageError {
            throw error
        } catch let failure as SQLiteError {
            throw StorageError(sqlite: failure, entityName: entityName, key: key, location: location)
        } catch {
            throw StorageError(
                .decodingFailed, entityName: entityName, key: key, location: location, underlyingError: error)
        }
    }

    /// Runs `body` with the connection, under the lock.
    /// - Throws: for a transaction's handle, ``StorageError/Kind/transactionClosed`` once its body
    ///   returned, and ``StorageError/Kind/transactionConflict(_:)`` while a transaction nested in
    ///   it is open; otherwise what `body` throws.
    func withConnection<Result>(entityName: String?, _ body: (inout State) throws -> Result) throws -> Result {
        try state.withLock(entityName: entityName) { state in
            if let transactionID, state.openTransactions.last != transactionID {
                guard state.openTransactions.contains(transactionID) else {
                    throw StorageError(.transactionClosed, entityName: entityName, location: location)
                }
                throw StorageError(
                    .transactionConflict(
                        "a handle was used while a transaction nested in it is open; use the nested one"),
                    entityName: entityName, location: location)
            }
            if transactionID != nil && sqlite3_get_autocommit(state.connection.handle) != 0 {
                // Some failures (a full disk) make SQLite roll the whole transaction back; a call
                // now would run outside it, so none may.
                throw StorageError(
                    .io("SQLite rolled the transaction back after an earlier failure"), entityName: entityName,
                    location: location)
            }
            return try body(&state)
        }
    }

    /// Announces a committed write, or, on a transaction's handle, records its type for the
    /// commit to announce.
    func announce(entityName: String, storageKeys: [String]?) {
        guard transactionID != nil else {
            if let storageKeys {
                notifier.post(entityName: entityName, storageKeys: storageKeys)
            } else {
                notifier.post(.entity(entityName))
            }
            return
        }
        _ = try? state.withLock(entityName: entityName) { $0.written.insert(entityName) }
    }

    /// Runs `body` on the entity's table, when it exists, under the lock; `nil` when it does not.
    /// SQLite failures become ``StorageError``s naming the entity and the file.
    func read<Result>(entityName: String, _ body: (SQLiteTable, SQLiteConnection) throws -> Result) throws -> Result? {
        try readWithState(entityName: entityName) { table, state in try body(table, state.connection) }
    }

    /// As `read(entityName:_:)`, with the whole state: for the reads that remember what they
    /// learned about the connection's tables.
    func readWithState<Result>(entityName: String, _ body: (SQLiteTable, inout State) throws -> Result) throws
        -> Result?
    {
        try withConnection(entityName: entityName) { state in
            do {
                guard let table = try Self.table(entityName, in: &state) else { return nil }
                return try body(table, &state)
            } catch let failure as SQLiteError {
                throw StorageError(sqlite: failure, entityName: entityName, location: location)
            }
        }
    }

    /// Runs `body` on the entity's table in a write transaction, when the table exists.
    func write(entityName: String, _ body: (SQLiteTable, SQLiteConnection) throws -> Void) throws {
        try withConnection(entityName: entityName) { state in
            defer { state.wrote(entityName) }
            do {
                guard let table = try Self.table(entityName, in: &state) else { return }
                try state.connection.transaction(writing: true) { try body(table, state.connection) }
            } catch let failure as SQLiteError {
                throw StorageError(sqlite: failure, entityName: entityName, location: location)
            }
        }
    }

    /// The entity's table, from the cache or the database; `nil` when it does not exist yet.
    static func table(_ entityName: String, in state: inout State) throws -> SQLiteTable? {
        if let table = state.tables[entityName] { return table }
        guard let table = try SQLiteSchema.load(entityName, connection: state.connection) else { return nil }
        state.tables[entityName] = table
        return table
    }

    /// The entity's name, refused when it is one of DAOKit's or SQLite's own tables.
    static func checkedName<E: Storable>(_ type: E.Type) throws -> String {
        let name = E.entityName
        let lowered = name.lowercased()
        if lowered.hasPrefix(SQLiteSchema.reservedPrefix) || lowered.hasPrefix("sqlite_") || name.isEmpty {
            throw StorageError(
                .encodingFailed, entityName: name,
                underlyingError: SQLiteError(
                    extendedResultCode: SQLITE_MISUSE,
                    message: "entity names starting with daokit_ or sqlite_ are reserved"))
        }
        return name
    }

    /// A storage key in the form the `daokit_key` column holds: NFC, so that ids Swift sees as
    /// equal are one record, as in every context.
    @inline(__always)
    static func normalized(_ key: String) -> String {
        key.utf8.allSatisfy { $0 < 0x80 } ? key : key.precomposedStringWithCanonicalMapping
    }
}

extension SQLiteStatement {
    /// A reader for this statement's rows; call after a step returned a row.
    func rowReader() -> SQLiteRowReader {
        if let cachedReader, cachedReader.names.count + 1 == Int(columnCount) { return cachedReader }
        let reader = SQLiteRowReader(statement: self)
        cachedReader = reader
        return reader
    }
}
