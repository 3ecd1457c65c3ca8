import DAOKit
import DAOKitSQL
import Foundation
import PostgresNIO

/// Saving and deleting: each call one transaction, announced to this process's observers after
/// it commits and to other instances by `NOTIFY` inside it (delivered only if it commits).
extension PostgresStorageContext {
    /// ``StorageContext/save(_:)``: insert or replace, all or nothing.
    public func save<E: Storable>(_ entities: [E]) async throws {
        try await save(entities, mode: .upsert)
    }

    /// ``StorageContext/save(_:mode:)`` in one transaction: the primary key resolves two
    /// instances inserting one id (the second gets ``StorageError/Kind/duplicateID``), and rows
    /// an update checks are locked until it commits. Unique indexes are the server's (see
    /// "Unique indexes" in `PostgresStorageContext+UniqueIndexes.swift`), so two instances
    /// taking one value at once leave one.
    /// - Throws: ``StorageError``: `duplicateID` or `missingID` naming the first offending entity,
    ///   `uniqueViolation` naming the refused record and the one holding its values,
    ///   `encodingFailed`, or `io` for a server or connection failure. Nothing is written then.
    public func save<E: Storable>(_ entities: [E], mode: SaveMode) async throws {
        if entities.isEmpty { return }
        let entityName = E.entityName
        let table = try table(E.self)
        let versioning = try JSONRecord.Versioning.of(E.self)
        // Encoded in the caller's task, before anything is sent.
        var keys: [String] = []
        var records: [JSONRecord.Encoded] = []
        var positions: [String: Int] = [:]
        keys.reserveCapacity(entities.count)
        records.reserveCapacity(entities.count)
        for entity in entities {
            let key = Self.columnKey(entity.id.storageKey)
            let record = try JSONRecord.encode(entity)
            if let earlier = positions[key] {
                if mode == .insert {
                    throw StorageError(
                        .duplicateID, entityName: entityName, key: entity.id.storageKey, location: serverDescription)
                }
                records[earlier] = record  // the later entity wins, as in every context
                continue
            }
            positions[key] = keys.count
            keys.append(key)
            records.append(record)
        }
        try await ensureTable(entityName, table: table)
        try await ensureIndexes(E.self, records: records)
        let fresh = unrecordedKinds(entityName, records: records)
        let notification = notificationPayload(entityName: entityName, keys: entities.map(\.id.storageKey))
        var binds = PostgresBindings()
        binds.append(keys)
        binds.append(records.map(\.json))
        binds.append(entityName)
        binds.append(fresh.fields)
        binds.append(fresh.kinds)
        binds.append(PostgresSchema.channel)
        binds.append(notification)
        binds.append(versioning.version)
        if let readableFrom = versioning.storedReadableFrom { binds.append(readableFrom) } else { binds.appendNull() }
        let recordKinds = """
            INSERT INTO \(kindsSchema).daokit_field_kinds (entity_name, field, kind) \
            SELECT $3, * FROM unnest($4::text[], $5::text[]) ON CONFLICT DO NOTHING
            """
        let upsert = Self.upsert(into: table, versioning: versioning, binds: &binds)
        let server = serverDescription
        // A batch is judged on the state it leaves, as on every context: the server checks a
        // unique index row by row, so the batch's stored rows go first and two of them may swap
        // values. (An insert replaces no stored row.)
        var deleteFirst: PostgresQuery?
        if mode != .insert && keys.count > 1 && E.indexes.contains(where: \.isUnique) {
            deleteFirst = Self.deleteFirst(keys, from: table, versioning: versioning)
        }
        do {
            try await write(
                mode: mode, recordKinds: recordKinds, upsert: upsert, binds: binds, keys: keys, table: table,
                entityName: entityName, server: server, deleteFirst: deleteFirst, versioning: versioning)
        } catch  where Self.isUniqueViolation(error) {
            throw await uniqueViolation(of: E.self, keys: keys, records: records, failure: error)
        }
        if !fresh.fields.isEmpty { forgetKinds(entityName) }
        announce(entityName, storageKeys: entities.map(\.id.storageKey))
    }

    /// The `INSERT … ON CONFLICT DO UPDATE` of a save (parameters `$1`, `$2`, `$8` and `$9`, and
    /// `$10`, which it appends to `binds`, when the entity keeps removed fields), returning a
    /// row for each row it wrote: it writes none over a row a newer version wrote, and keeps the
    /// stored values of the ``JSONRecord/Versioning/keptFields`` the new record does not hold
    /// (`||` keeps the right-hand value of a field both hold).
    private static func upsert(into table: String, versioning: JSONRecord.Versioning, binds: inout PostgresBindings)
        -> String
    {
        var record = "EXCLUDED.record"
        if !versioning.keptFields.isEmpty {
            binds.append(versioning.keptFields.sorted())
            record = keptValues(of: "daokit_stored.record", fields: "$10::text[]") + " || EXCLUDED.record"
        }
        let version = PostgresSchema.versionColumn
        let readableFrom = PostgresSchema.readableFromColumn
        return """
            INSERT INTO \(table) AS daokit_stored (daokit_key, record, \(version), \(readableFrom)) \
            SELECT *, $8::integer, $9::integer FROM unnest($1::text[], $2::text[]::jsonb[]) \
            ON CONFLICT (daokit_key_sha256) DO UPDATE SET record = \(record), \(version) = EXCLUDED.\(version), \
            \(readableFrom) = EXCLUDED.\(readableFrom) \
            WHERE \(PostgresSchema.storedVersion(in: "daokit_stored")) <= \(versioning.version) RETURNING 1
            """
    }

    /// The statements of ``save(_:mode:)``, in one transaction: `deleteFirst`, then the rows.
    /// - Throws: ``StorageError/Kind/newerVersion(_:)`` when a row a newer version wrote is among
    ///   those to replace (the upsert left it; the transaction rolls back).
    private func write(
        mode: SaveMode, recordKinds: String, upsert: String, binds: PostgresBindings, keys: [String],
        table: String, entityName: String, server: String, deleteFirst: PostgresQuery?,
        versioning: JSONRecord.Versioning
    ) async throws {
        // One statement: the kinds, the rows and the notification together.
        let upsertStatement = """
            WITH kinds AS (\(recordKinds)), saved AS (\(upsert)) \
            SELECT (SELECT count(*) FROM saved), \(notifyCall("$6", "$7"))::text
            """
        switch mode {
        case .upsert:
            try await transaction(entityName: entityName) { connection in
                try await self.upsertRows(
                    PostgresQuery(unsafeSQL: upsertStatement, binds: binds), deleteFirst: deleteFirst, keys: keys,
                    table: table,
                    entityName: entityName, versioning: versioning, on: connection)
            }
        case .insert:
            let version = PostgresSchema.versionColumn
            let readableFrom = PostgresSchema.readableFromColumn
            let sql = """
                WITH kinds AS (\(recordKinds)), saved AS (INSERT INTO \(table) (daokit_key, record, \(version), \(readableFrom)) \
                SELECT *, $8::integer, $9::integer FROM unnest($1::text[], $2::text[]::jsonb[]) \
                ON CONFLICT (daokit_key_sha256) DO NOTHING RETURNING daokit_key) \
                SELECT daokit_key, \(notifyCall("$6", "$7"))::text FROM saved
                """
            try await transaction(entityName: entityName) { connection in
                var inserted: Set<String> = []
                for try await (key, _) in try await connection.query(
                    PostgresQuery(unsafeSQL: sql, binds: binds), logger: Self.logger
                )
                .decode((String, String).self) {
                    inserted.insert(key)
                }
                if let existing = keys.first(where: { !inserted.contains($0) }) {
                    throw StorageError(
                        .duplicateID, entityName: entityName, key: Self.storageKey(existing), location: server)
                }
            }
        case .update:
            var lockBinds = PostgresBindings()
            lockBinds.append(keys)
            let lock = PostgresQuery(
                unsafeSQL: "SELECT daokit_key FROM \(table) WHERE \(PostgresSchema.keyIsIn("$1::text[]")) FOR UPDATE",
                binds: lockBinds)
            try await transaction(entityName: entityName) { connection in
                var stored: Set<String> = []
                for try await key in try await connection.query(lock, logger: Self.logger).decode(String.self) {
                    stored.insert(key)
                }
                if let missing = keys.first(where: { !stored.contains($0) }) {
                    throw StorageError(
                        .missingID, entityName: entityName, key: Self.storageKey(missing), location: server)
                }
                try await self.upsertRows(
                    PostgresQuery(unsafeSQL: upsertStatement, binds: binds), deleteFirst: deleteFirst, keys: keys,
                    table: table,
                    entityName: entityName, versioning: versioning, on: connection)
            }
        }
    }

    /// Runs `deleteFirst`, if any, then `upsert` (which counts the rows it wrote), then gives the
    /// rows back what `deleteFirst` kept of them.
    /// - Throws: ``StorageError/Kind/newerVersion(_:)`` when the upsert left a row a newer version
    ///   wrote (``newerRow(among:table:entityName:versioning:on:)``).
    private func upsertRows(
        _ upsert: PostgresQuery, deleteFirst: PostgresQuery?, keys: [String], table: String, entityName: String,
        versioning: JSONRecord.Versioning, on connection: PostgresConnection
    ) async throws {
        let kept = try await Self.run(deleteFirst, on: connection)
        let written = try await Self.count(upsert, on: connection)
        if written < keys.count {
            throw try await newerRow(
                among: keys, table: table, entityName: entityName, versioning: versioning, on: connection)
        }
        try await Self.restore(kept, in: table, on: connection)
    }

    /// The statement that deletes a batch's stored rows before it writes them (see
    /// ``save(_:mode:)``), but for those a newer version wrote, which the upsert then refuses;
    /// it returns the values of the ``JSONRecord/Versioning/keptFields`` each deleted row holds,
    /// for ``restore(_:in:on:)``.
    private static func deleteFirst(_ keys: [String], from table: String, versioning: JSONRecord.Versioning)
        -> PostgresQuery
    {
        var binds = PostgresBindings()
        binds.append(keys)
        var kept = "'{}'"
        if !versioning.keptFields.isEmpty {
            binds.append(versioning.keptFields.sorted())
            kept = keptValues(of: "daokit_stored.record", fields: "$2::text[]")
        }
        return PostgresQuery(
            unsafeSQL: """
                DELETE FROM \(table) AS daokit_stored WHERE \(PostgresSchema.keyIsIn("$1::text[]")) \
                AND \(PostgresSchema.storedVersion(in: "daokit_stored")) <= \(versioning.version) \
                RETURNING daokit_key, \(kept)::text
                """, binds: binds)
    }

    /// The `jsonb` object of the fields named in the `text[]` `fields` that the `jsonb` `record` holds.
    private static func keptValues(of record: String, fields: String) -> String {
        "(SELECT coalesce(jsonb_object_agg(f.key, f.value), '{}'::jsonb) FROM jsonb_each(\(record)) AS f "
            + "WHERE f.key = ANY(\(fields)))"
    }

    /// Runs ``deleteFirst(_:from:versioning:)``'s statement, if any, and returns the kept values
    /// of the rows it deleted that hold some: (key column, `jsonb` text).
    private static func run(_ deleteFirst: PostgresQuery?, on connection: PostgresConnection) async throws
        -> [(String, String)]
    {
        guard let deleteFirst else { return [] }
        var kept: [(String, String)] = []
        for try await (key, values) in try await connection.query(deleteFirst, logger: Self.logger).decode(
            (String, String).self)
        where values != "{}" {
            kept.append((key, values))
        }
        return kept
    }

    /// Gives the rows written after ``deleteFirst(_:from:versioning:)`` the kept values their
    /// deleted predecessors held, under the fields the new records hold.
    private static func restore(_ kept: [(String, String)], in table: String, on connection: PostgresConnection)
        async throws
    {
        if kept.isEmpty { return }
        var binds = PostgresBindings()
        binds.append(kept.map(\.0))
        binds.append(kept.map(\.1))
        let sql = """
            UPDATE \(table) AS daokit_stored SET record = s.kept::jsonb || daokit_stored.record \
            FROM unnest($1::text[], $2::text[]) AS s(k, kept) \
            WHERE daokit_stored.daokit_key_sha256 = \(PostgresSchema.keyHash("s.k")) AND daokit_stored.daokit_key = s.k
            """
        try await connection.execute(PostgresQuery(unsafeSQL: sql, binds: binds), logger: Self.logger)
    }

    /// The first cell of the one row `statement` returns, an `int8` count.
    private static func count(_ statement: PostgresQuery, on connection: PostgresConnection) async throws -> Int {
        for try await (count, _) in try await connection.query(statement, logger: Self.logger).decode(
            (Int, String).self)
        {
            return count
        }
        return 0
    }

    /// The error of a save that an upsert refused because a newer version wrote one of its rows
    /// (``JSONRecord/Versioning/replacementRefused(storedVersion:key:location:)``), naming that row.
    private func newerRow(
        among keys: [String], table: String, entityName: String, versioning: JSONRecord.Versioning,
        on connection: PostgresConnection
    ) async throws -> StorageError {
        var binds = PostgresBindings()
        binds.append(keys)
        let sql = """
            SELECT daokit_key, \(PostgresSchema.versionColumn) FROM \(table) WHERE \(PostgresSchema.keyIsIn("$1::text[]")) \
            AND \(PostgresSchema.versionColumn) > \(versioning.version) LIMIT 1
            """
        for try await (key, version) in try await connection.query(
            PostgresQuery(unsafeSQL: sql, binds: binds), logger: Self.logger
        )
        .decode((String, Int).self) {
            return versioning.replacementRefused(
                storedVersion: version, key: Self.storageKey(key), location: serverDescription)
        }
        return StorageError(
            .io("the server wrote fewer rows than the save holds, and none is newer than this version"),
            entityName: entityName, location: serverDescription)
    }

    /// ``StorageContext/delete(_:ids:)``: one statement; unknown ids are ignored.
    public func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) async throws {
        try await delete(type, storageKeys: ids.map(\.storageKey))
    }

    /// ``StorageContext/delete(_:storageKeys:)``: removes the rows without reading them.
    public func delete<E: Storable>(_ type: E.Type, storageKeys: [String]) async throws {
        if storageKeys.isEmpty { return }
        let keys = storageKeys.map(Self.columnKey)
        try await deleteRows(E.self, condition: PostgresSchema.keyIsIn("$3::text[]"), keys: storageKeys) {
            $0.append(keys)
        }
        announce(E.entityName, storageKeys: storageKeys)
    }

    /// ``StorageContext/deleteAll(_:)``.
    public func deleteAll<E: Storable>(_ type: E.Type) async throws {
        try await deleteRows(E.self, condition: "TRUE", keys: nil) { _ in }
        announce(E.entityName, storageKeys: nil)
    }

    /// `DELETE … WHERE condition` with the notification, in one statement. The condition's
    /// parameters start at `$3`.
    func deleteRows<E: Storable>(
        _ type: E.Type, condition: String, keys: [String]?,
        bindCondition: (inout PostgresBindings) -> Void
    ) async throws {
        let entityName = E.entityName
        let table = try table(E.self)
        try await ensureTable(entityName, table: table)
        var binds = PostgresBindings()
        binds.append(PostgresSchema.channel)
        binds.append(notificationPayload(entityName: entityName, keys: keys))
        bindCondition(&binds)
        let sql = "WITH gone AS (DELETE FROM \(table) WHERE \(condition)) SELECT \(notifyCall("$1", "$2"))"
        try await transaction(entityName: entityName) { connection in
            try await connection.execute(PostgresQuery(unsafeSQL: sql, binds: binds), logger: Self.logger)
        }
    }

    /// ``StorageContext/reset()``: empties every entity table of the schema in one transaction.
    public func reset() async throws {
        let schema = kindsSchema
        let payload = notificationPayload(entityName: nil, keys: nil)
        let bootstrapped = state.withLock { $0.bootstrapped }
        try await transaction(entityName: nil) { connection in
            try await self.lockSchema(on: connection, bootstrapped: bootstrapped)
            var tables: [String] = []
            for try await name in try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT entity_name FROM \(schema).daokit_entities"),
                logger: Self.logger
            ).decode(String.self) {
                tables.append(schema + "." + PostgresSchema.quoted(name))
            }
            if !tables.isEmpty {
                try await connection.execute(
                    PostgresQuery(unsafeSQL: "TRUNCATE \(tables.joined(separator: ", "))"), logger: Self.logger)
            }
            var binds = PostgresBindings()
            binds.append(PostgresSchema.channel)
            binds.append(payload)
            try await connection.execute(
                PostgresQuery(unsafeSQL: "SELECT \(self.notifyCall("$1", "$2"))", binds: binds), logger: Self.logger)
        }
        announceReset()
    }

    /// The `NOTIFY` payload announcing a commit: this schema, this context (whose own listener
    /// skips it), the entity and, when they fit PostgreSQL's 8,000-byte limit, the keys.
    ///
    /// On a transaction's handle, empty: the transaction announces itself once, at its commit.
    func notificationPayload(entityName: String?, keys: [String]?) -> String {
        if held != nil { return "" }
        var change = PostgresChangeListener.Announcement(
            schema: schema, origin: listener.origin, entity: entityName, keys: keys)
        if let text = change.encoded(), text.utf8.count < 7_900 { return text }
        change.keys = nil
        return change.encoded() ?? ""
    }
}
