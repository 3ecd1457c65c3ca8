import DAOKit
import DAOKitSQL

/// The query requirements, in SQL as far as ``SQLiteQueryTranslation`` makes it exact, and in
/// Swift (``QueryEvaluator``) on the rows SQL selected for the rest.
extension SQLiteStorageContext {
    /// The entities `query` selects, in its order, paged.
    ///
    /// When the filter and the sort translate exactly, SQL does everything, paging included, and
    /// only the returned rows are decoded. Otherwise SQL selects a superset (or every row), and
    /// the whole query is evaluated in Swift on those entities.
    /// - Throws: ``StorageError`` naming a row that does not decode, or the SQLite failure;
    ///   ``StorageError/Code/invalidQuery`` for a negative limit or offset, before reading.
    public func fetch<E: Storable>(_ type: E.Type, matching query: StorageQuery) throws -> [E] {
        try query.validate(entityName: E.entityName)
        let entityName = try Self.checkedName(E.self)
        let versioning = try EntityVersioning.of(E.self)
        let result = try read(entityName: entityName) { table, connection -> [E] in
            try connection.transaction(writing: false) {
                // Kinds and rows from one snapshot: another process may add kinds meanwhile.
                let translation = SQLiteQueryTranslation(
                    query, kinds: try queryKinds(of: table, versioning: versioning, for: query, connection: connection))
                let (sql, arguments) = Self.select(query, translation, from: table)
                let entities: [E] = try rows(
                    sql, arguments, versioning: versioning, entityName: entityName, connection: connection)
                return translation.isExact ? entities : try QueryEvaluator(query).apply(to: entities)
            }
        }
        return result ?? []
    }

    /// How many entities `filter` holds for: `count(*)` in SQL when the filter translates
    /// exactly, otherwise the rows SQL selects decoded and checked in Swift. A `!=` (or a `!(==)`)
    /// on a column of one kind is counted as the sum of three index ranges: below, above and
    /// `NULL` (`SQLiteDialect.complement(of:)`).
    /// - Throws: ``StorageError`` naming a row that does not decode, or the SQLite failure.
    public func count<E: Storable>(_ type: E.Type, matching filter: StorageFilter) throws -> Int {
        let entityName = try Self.checkedName(E.self)
        let versioning = try EntityVersioning.of(E.self)
        return try read(entityName: entityName) { table, connection -> Int in
            try connection.transaction(writing: false) {
                let kinds = try queryKinds(
                    of: table, versioning: versioning, for: StorageQuery(filter: filter), connection: connection)
                let translation = SQLiteQueryTranslation(StorageQuery(filter: filter), kinds: kinds)
                let condition = translation.condition.map { " WHERE " + $0 } ?? ""
                if translation.conditionIsExact {
                    let (sql, arguments) = Self.countSQL(filter, translation, kinds: kinds, from: table)
                    let statement = try connection.statement(sql)
                    defer { statement.reset() }
                    try bind(arguments, to: statement)
                    _ = try statement.step()
                    return Int(statement.integer(at: 0))
                }
                let entities: [E] = try rows(
                    "SELECT * FROM \(table.quotedName)" + condition, translation.arguments,
                    versioning: versioning, entityName: entityName, connection: connection)
                return try QueryEvaluator(StorageQuery(filter: filter)).count(in: entities)
            }
        } ?? 0
    }

    /// Removes the entities `filter` holds for, in one transaction: with one `DELETE` when the
    /// filter translates exactly, otherwise by reading the rows SQL selects, checking them in
    /// Swift and deleting those that match, all inside the transaction.
    /// - Throws: ``StorageError`` naming a row that does not decode, or the SQLite failure;
    ///   nothing is removed then.
    public func delete<E: Storable>(_ type: E.Type, matching filter: StorageFilter) throws {
        let entityName = try Self.checkedName(E.self)
        let versioning = try EntityVersioning.of(E.self)
        try write(entityName: entityName) { table, connection in
            let translation = SQLiteQueryTranslation(
                StorageQuery(filter: filter),
                kinds: try queryKinds(
                    of: table, versioning: versioning, for: StorageQuery(filter: filter), connection: connection))
            let condition = translation.condition.map { " WHERE " + $0 } ?? ""
            if translation.conditionIsExact {
                let statement = try connection.statement("DELETE FROM \(table.quotedName)" + condition)
                try bind(translation.arguments, to: statement)
                try statement.run()
                return
            }
            let entities: [E] = try rows(
                "SELECT * FROM \(table.quotedName)" + condition, translation.arguments, versioning: versioning,
                entityName: entityName, connection: connection)
            let doomed = try QueryEvaluator(StorageQuery(filter: filter)).apply(to: entities).map {
                Self.normalized($0.id.storageKey)
            }
            let statement = try connection.statement("DELETE FROM \(table.quotedName) WHERE daokit_key = ?")
            for key in doomed {
                statement.reset()
                statement.bindText(key, at: 1)
                try statement.run()
            }
        }
        announce(entityName: entityName, storageKeys: nil)
    }

    /// The `SELECT` that counts the rows an exact `translation` of `filter` selects.
    static func countSQL(
        _ filter: StorageFilter, _ translation: SQLiteQueryTranslation, kinds: [String: SQLiteFieldKinds],
        from table: SQLiteTable
    ) -> (sql: String, arguments: [SQLiteValue]) {
        if let ranges = SQLiteDialect(kinds: kinds).complement(of: filter) {
            let sql =
                "SELECT "
                + ranges.map { "(SELECT count(*) FROM \(table.quotedName) WHERE \($0.sql))" }.joined(separator: " + ")
            return (sql, ranges.flatMap(\.arguments))
        }
        return (
            "SELECT count(*) FROM \(table.quotedName)" + (translation.condition.map { " WHERE " + $0 } ?? ""),
            translation.arguments
        )
    }

    /// The `SELECT` for `query`: the translated condition, and when SQL answers the whole query,
    /// its order and page.
    static func select(_ query: StorageQuery, _ translation: SQLiteQueryTranslation, from table: SQLiteTable)
        -> (sql: String, arguments: [SQLiteValue])
    {
        var sql = "SELECT * FROM \(table.quotedName)"
        var arguments = translation.arguments
        if let condition = translation.condition { sql += " WHERE " + condition }
        if translation.isExact {
            if let ordering = translation.ordering { sql += " ORDER BY " + ordering }
            if query.limit != nil || query.offset > 0 {
                sql += " LIMIT ? OFFSET ?"
                arguments.append(.integer(Int64(query.limit ?? -1)))
                arguments.append(.integer(Int64(query.offset)))
            }
        }
        return (sql, arguments)
    }

    /// The entities of the rows `sql` returns; any row that does not decode fails the call.
    private func rows<E: Storable>(
        _ sql: String, _ arguments: [SQLiteValue], versioning: EntityVersioning, entityName: String,
        connection: SQLiteConnection
    ) throws -> [E] {
        let statement = try connection.statement(sql)
        defer { statement.reset() }
        try bind(arguments, to: statement)
        var entities: [E] = []
        var failures: [StorageError] = []
        guard try statement.step() else { return [] }
        let reader = statement.rowReader()
        repeat {
            do {
                entities.append(
                    try decodeRow(
                        E.self, reader: reader, versioning: versioning, entityName: entityName, key: "",
                        connection: connection))
            } catch let error as StorageError where error.kind == .decodingFailed {
                failures.append(
                    StorageError(
                        .decodingFailed, entityName: entityName, key: reader.key, location: location,
                        underlyingError: error.underlyingError))
            }
        } while try statement.step()
        try StorageError.throwIfAny(failures, entityName: entityName, location: location)
        return entities
    }

    /// The kinds a query on `table` translates with: what its columns have held, except for the
    /// fields that rows of an older entity version hold differently while such rows exist
    /// (``SQLiteEntityVersions/queryKinds(_:table:versioning:connection:)``).
    private func queryKinds(
        of table: SQLiteTable, versioning: EntityVersioning, for query: StorageQuery, connection: SQLiteConnection
    ) throws -> [String: SQLiteFieldKinds] {
        try SQLiteEntityVersions.queryKinds(
            try SQLiteSchema.kinds(of: table.entityName, connection: connection), table: table,
            versioning: versioning, fields: Set(query.fields.compactMap(\.keys.first)), connection: connection)
    }

    private func bind(_ arguments: [SQLiteValue], to statement: SQLiteStatement) throws {
        for (position, argument) in arguments.enumerated() { try statement.bind(argument, at: Int32(position + 1)) }
    }
}

extension SQLiteStorageContext: ExplainingStorageContext {}

extension SQLiteStorageContext {
    /// How `query` would run on the entity's table now: what SQL answers and what is left to
    /// Swift. For tests and diagnostics; `nil` when the table does not exist yet.
    func translation<E: Storable>(of query: StorageQuery, for type: E.Type) throws -> SQLiteQueryTranslation? {
        let entityName = try Self.checkedName(E.self)
        let versioning = try EntityVersioning.of(E.self)
        return try read(entityName: entityName) { table, connection in
            SQLiteQueryTranslation(
                query, kinds: try queryKinds(of: table, versioning: versioning, for: query, connection: connection))
        }
    }

    /// How ``fetch(_:matching:)`` (or, when `counting`, ``count(_:matching:)``) would answer
    /// `query`: the statement, SQLite's plan for it (`EXPLAIN QUERY PLAN`), the declared index
    /// that plan searches or scans, and whether it reads every row.
    /// - Throws: ``StorageError`` or the SQLite failure.
    public func explain<E: Storable>(_ query: StorageQuery, counting: Bool, for type: E.Type) throws -> StorageAccess {
        let entityName = try Self.checkedName(E.self)
        let versioning = try EntityVersioning.of(E.self)
        return try read(entityName: entityName) { table, connection -> StorageAccess in
            let kinds = try queryKinds(of: table, versioning: versioning, for: query, connection: connection)
            let translation = SQLiteQueryTranslation(query, kinds: kinds)
            let (sql, arguments) =
                counting && translation.conditionIsExact
                ? Self.countSQL(query.filter ?? .and([]), translation, kinds: kinds, from: table)
                : Self.select(query, translation, from: table)
            let statement = try connection.statement("EXPLAIN QUERY PLAN " + sql)
            defer { statement.reset() }
            try bind(arguments, to: statement)
            var lines: [String] = []
            while try statement.step() { lines.append(statement.text(at: 3)) }
            let reads = lines.filter { $0.hasPrefix("SCAN \(entityName)") || $0.hasPrefix("SEARCH \(entityName)") }
            let index = E.indexes.first { index in
                let name = SQLiteSchema.indexName(of: index, entityName: entityName)
                return reads.contains { $0.contains("INDEX \(name) ") || $0.hasSuffix("INDEX \(name)") }
            }
            let scans = reads.contains { $0.hasPrefix("SCAN") }
            return StorageAccess(
                index: index, scansEveryRecord: scans,
                countsIndexEntries: counting && !scans && !reads.isEmpty
                    && reads.allSatisfy { $0.contains("COVERING INDEX") },
                statement: sql, databasePlan: lines)
        } ?? StorageAccess(scansEveryRecord: false)
    }

    /// SQLite's plan for the statement ``count(_:matching:)`` runs for `filter` when it
    /// translates exactly (the detail lines of `EXPLAIN QUERY PLAN`). For tests and diagnostics.
    func countPlan<E: Storable>(of filter: StorageFilter, for type: E.Type) throws -> [String] {
        let entityName = try Self.checkedName(E.self)
        let versioning = try EntityVersioning.of(E.self)
        return try read(entityName: entityName) { table, connection in
            let kinds = try queryKinds(
                of: table, versioning: versioning, for: StorageQuery(filter: filter), connection: connection)
            let translation = SQLiteQueryTranslation(StorageQuery(filter: filter), kinds: kinds)
            let (sql, arguments) = Self.countSQL(filter, translation, kinds: kinds, from: table)
            let statement = try connection.statement("EXPLAIN QUERY PLAN " + sql)
            defer { statement.reset() }
            try bind(arguments, to: statement)
            var lines: [String] = []
            while try statement.step() { lines.append(statement.text(at: 3)) }
            return lines
        } ?? []
    }

    /// SQLite's plan for the `SELECT` that ``fetch(_:matching:)`` runs for `query` (the detail
    /// lines of `EXPLAIN QUERY PLAN`): shows whether an index serves it. For tests and diagnostics.
    func queryPlan<E: Storable>(of query: StorageQuery, for type: E.Type) throws -> [String] {
        let entityName = try Self.checkedName(E.self)
        let versioning = try EntityVersioning.of(E.self)
        return try read(entityName: entityName) { table, connection in
            let translation = SQLiteQueryTranslation(
                query, kinds: try queryKinds(of: table, versioning: versioning, for: query, connection: connection))
            let (sql, arguments) = Self.select(query, translation, from: table)
            let statement = try connection.statement("EXPLAIN QUERY PLAN " + sql)
            defer { statement.reset() }
            try bind(arguments, to: statement)
            var lines: [String] = []
            while try statement.step() { lines.append(statement.text(at: 3)) }
            return lines
        } ?? []
    }
}
