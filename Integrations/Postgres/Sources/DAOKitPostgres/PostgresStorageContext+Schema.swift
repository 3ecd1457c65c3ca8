import DAOKit
import DAOKitSQL
import PostgresNIO

/// Creating DAOKit's tables on first use, and reading what `daokit_field_kinds` records.
extension PostgresStorageContext {
    /// Creates the schema, DAOKit's tables and the entity's table unless this context did before,
    /// and brings a table of an earlier layout to this one (see ``PostgresSchema``). Runs under
    /// an advisory lock, so that instances starting together do not race on
    /// `CREATE … IF NOT EXISTS` (which is not safe against itself) or on the migration.
    ///
    /// On a transaction's handle, the context does it on a connection of its own, committed at
    /// once: inside the transaction, the advisory lock would be held until its commit, and a
    /// reader outside using a new type meanwhile would wait for it. Once the transaction holds
    /// that lock (see ``ensureIndexes(_:records:)``), inside it, since the context would wait.
    func ensureTable(_ entityName: String, table: String) async throws {
        if state.withLock({ $0.tables[entityName]?.created == true }) { return }
        if let root, held?.holdsDDLLock != true {
            try await root.ensureTable(entityName, table: table)
            state.withLock {
                $0.bootstrapped = true
                $0.tables[entityName, default: TableState()].created = true
            }
            return
        }
        let bootstrapped = state.withLock { $0.bootstrapped }
        try await transaction(entityName: entityName) { connection in
            try await self.lockSchema(on: connection, bootstrapped: bootstrapped)
            try await connection.execute(
                PostgresQuery(unsafeSQL: PostgresSchema.createTable(table)), logger: Self.logger)
            var tableBinds = PostgresBindings()
            tableBinds.append(table)
            let layout = PostgresQuery(unsafeSQL: PostgresSchema.layoutOfTable, binds: tableBinds)
            var migrations: [String] = []
            for try await (current, primaryKey, versioned) in try await connection.query(layout, logger: Self.logger)
                .decode((Bool, String?, Bool).self)
            {
                if !current { migrations.append(PostgresSchema.migrateTable(table, primaryKey: primaryKey)) }
                // Asked first: `ADD COLUMN IF NOT EXISTS` would lock the table even when it has them.
                if !versioned { migrations += PostgresSchema.addVersionColumns(table) }
            }
            for migration in migrations {
                try await connection.execute(PostgresQuery(unsafeSQL: migration), logger: Self.logger)
            }
            var binds = PostgresBindings()
            binds.append(entityName)
            try await connection.execute(
                PostgresQuery(
                    unsafeSQL: "INSERT INTO \(self.kindsSchema).daokit_entities VALUES ($1) ON CONFLICT DO NOTHING",
                    binds: binds), logger: Self.logger)
        }
        state.withLock {
            $0.bootstrapped = true
            $0.tables[entityName, default: TableState()].created = true
        }
    }

    /// Creates the entity's declared indexes unless this context did before, with the expressions
    /// for the kinds `records` hold (and, for unique indexes, the kinds recorded on the server).
    ///
    /// On a transaction's handle, the context does it on a connection of its own (as
    /// ``ensureTable(_:table:)``), unless the transaction has written the table: `CREATE INDEX`
    /// would wait for the transaction's lock on it, and the transaction for the index. Then it is
    /// done inside the transaction.
    /// - Throws: ``StorageError/Code/uniqueViolation`` naming two stored records with equal values
    ///   in a unique index, which then stays uncreated (see "Unique indexes" in
    ///   `PostgresStorageContext+UniqueIndexes.swift`); ``StorageError/Kind/unsupported(_:)`` for
    ///   a unique index on a nested field, refused before anything is written rather than written
    ///   unchecked.
    func ensureIndexes<E: Storable>(_ type: E.Type, records: [JSONRecord.Encoded]) async throws {
        let entityName = E.entityName
        if let nested = E.indexes.first(where: { $0.isUnique && !$0.fields.allSatisfy { $0.keys.count == 1 } }) {
            let fields = nested.fields.map(\.description).joined(separator: ", ")
            throw StorageError(
                .unsupported(
                    "PostgreSQL keeps unique indexes on top-level fields only, and (\(fields)) reads a nested one"),
                entityName: entityName)
        }
        if E.indexes.isEmpty || state.withLock({ $0.tables[entityName]?.indexesEnsured == true }) { return }
        if let root, let held, !held.hasWritten(entityName) {
            try await root.ensureIndexes(E.self, records: records)
            state.withLock { $0.tables[entityName, default: TableState()].indexesEnsured = true }
            return
        }
        var kinds: [String: Set<JSONRecord.FieldKind>] = [:]
        for record in records {
            for field in record.fields where kinds[field.name] == nil { kinds[field.name] = [field.kind] }
        }
        let statements = E.indexes.enumerated().flatMap { position, index in
            index.isUnique
                ? []
                : PostgresSchema.createIndex(
                    index, position: position, entityName: entityName, schema: schema, kinds: kinds)
        }
        var numeric: Set<String> = []
        if E.indexes.contains(where: \.isUnique) {
            numeric = await numericFields(of: E.self)
            for record in records {
                for field in record.fields where PostgresSchema.numberKinds.contains(field.kind) {
                    numeric.insert(field.name)
                }
            }
        }
        let unique = E.indexes.enumerated().filter { $0.element.isUnique }
        do {
            try await transaction(entityName: entityName) { [schema, numeric] connection in
                try await self.lockDDL(on: connection)
                for statement in statements {
                    try await connection.execute(PostgresQuery(unsafeSQL: statement), logger: Self.logger)
                }
                for (position, index) in unique {
                    let statement = PostgresSchema.createUniqueIndex(
                        index, position: position, entityName: entityName, schema: schema, numeric: numeric)
                    do {
                        try await connection.execute(PostgresQuery(unsafeSQL: statement), logger: Self.logger)
                    } catch  where Self.isUniqueViolation(error) {
                        throw UniqueIndexCreationFailed(index: index, underlying: error)
                    }
                }
            }
        } catch let error as StorageError {
            guard let failed = error.underlyingError as? UniqueIndexCreationFailed else { throw error }
            throw await storedDuplicates(of: E.self, index: failed.index, failure: error)
        }
        state.withLock {
            $0.tables[entityName, default: TableState()].indexesEnsured = true
            if !unique.isEmpty { $0.tables[entityName, default: TableState()].uniqueNumericFields = numeric }
        }
    }

    /// The kinds each field of the entity has held, as this context last read them, and how many
    /// (field, kind) rows that was; read from the server the first time.
    func kinds(of entityName: String, refresh: Bool = false) async throws -> (
        kinds: [String: Set<JSONRecord.FieldKind>], rows: Int
    ) {
        if !refresh,
            let known = state.withLock({ table in
                table.tables[entityName].flatMap { $0.kinds.map { ($0, table.tables[entityName]!.kindRows) } }
            })
        {
            return known
        }
        var binds = PostgresBindings()
        binds.append(entityName)
        let query = PostgresQuery(
            unsafeSQL: "SELECT field, kind FROM \(kindsSchema).daokit_field_kinds WHERE entity_name = $1", binds: binds)
        let pairs = try await withConnection(entityName: entityName) { connection in
            var pairs: [(String, String)] = []
            for try await (field, kind) in try await connection.query(query, logger: Self.logger).decode(
                (String, String).self)
            {
                pairs.append((field, kind))
            }
            return pairs
        }
        var kinds: [String: Set<JSONRecord.FieldKind>] = [:]
        // A kind this version does not know is compared only in Swift.
        for (field, kind) in pairs { kinds[field, default: []].insert(JSONRecord.FieldKind(rawValue: kind) ?? .opaque) }
        let result = (kinds, pairs.count)
        state.withLock {
            $0.tables[entityName, default: TableState()].kinds = result.0
            $0.tables[entityName, default: TableState()].kindRows = result.1
        }
        return result
    }

    /// The (field, kind) pairs of `records` that this context has not seen recorded.
    func unrecordedKinds(_ entityName: String, records: [JSONRecord.Encoded]) -> (fields: [String], kinds: [String]) {
        let known = state.withLock { $0.tables[entityName]?.kinds } ?? [:]
        var fresh: [String: Set<JSONRecord.FieldKind>] = [:]
        for record in records {
            for field in record.fields where known[field.name]?.contains(field.kind) != true {
                fresh[field.name, default: []].insert(field.kind)
            }
        }
        var fields: [String] = []
        var kinds: [String] = []
        for (field, set) in fresh {
            for kind in set {
                fields.append(field)
                kinds.append(kind.rawValue)
            }
        }
        return (fields, kinds)
    }

    /// Forgets the kinds read, after a write recorded new ones: the next query reads them again.
    /// On a transaction's handle, the context forgets them too once the transaction commits.
    func forgetKinds(_ entityName: String) {
        state.withLock { $0.tables[entityName]?.kinds = nil }
        held?.recordKinds(of: entityName, at: level)
    }

    /// Takes the DDL lock for the rest of the transaction and, unless `bootstrapped`, creates the
    /// schema and DAOKit's own tables.
    func lockSchema(on connection: PostgresConnection, bootstrapped: Bool) async throws {
        try await lockDDL(on: connection)
        if bootstrapped { return }
        for statement in PostgresSchema.bootstrap(schema: schema) {
            try await connection.execute(PostgresQuery(unsafeSQL: statement), logger: Self.logger)
        }
    }

    /// The schema, quoted.
    var kindsSchema: String { PostgresSchema.quoted(schema) }

    /// Takes, for the rest of the transaction, the advisory lock that serializes DAOKit's DDL in
    /// this schema: `CREATE … IF NOT EXISTS` is not safe against itself. Contexts on other schemas
    /// take other locks (two schemas whose names hash alike merely wait for each other), so one
    /// store's first use never waits for another's.
    func lockDDL(on connection: PostgresConnection) async throws {
        held?.noteDDLLock()
        var binds = PostgresBindings()
        binds.append(Self.ddlLockClass)
        binds.append(Self.ddlLockKey(schema: schema))
        try await connection.execute(
            PostgresQuery(unsafeSQL: "SELECT pg_advisory_xact_lock($1, $2)", binds: binds), logger: Self.logger)
    }

    /// The first half of DAOKit's DDL advisory lock keys: "DAOK".
    static let ddlLockClass: Int32 = 0x4441_4F4B

    /// The second half for `schema`: its name's 32-bit FNV-1a hash, computed here rather than by
    /// the server so that it never changes with the server's version.
    static func ddlLockKey(schema: String) -> Int32 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in schema.utf8 {
            hash ^= UInt32(byte)
            hash &*= 0x0100_0193
        }
        return Int32(bitPattern: hash)
    }
}
