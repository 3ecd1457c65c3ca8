import DAOKit
import DAOKitSQL
import Foundation
import PostgresNIO

/// The query requirements, in SQL as far as ``PostgresQueryTranslation`` makes it exact, and in
/// Swift (``StorageQuery/apply(to:)``) on the rows SQL selected for the rest.
///
/// The translation depends on the kinds recorded in `daokit_field_kinds`, which another instance
/// may extend at any moment. Each statement therefore also counts the recorded (field, kind) rows
/// in its own snapshot; when the count is not the one the SQL was built for, the kinds are read
/// again and the statement re-run, so no answer rests on kinds older than the rows it read.
/// (Kinds are only ever added, so an equal count means equal kinds.)
extension PostgresStorageContext {
    /// ``StorageContext/fetch(_:matching:)``: SQL does everything, paging included, when the
    /// filter and the sort translate exactly; otherwise it selects a superset and Swift finishes.
    /// - Throws: ``StorageError`` of code `invalidQuery` for a negative limit or offset, before
    ///   any SQL is sent.
    public func fetch<E: Storable>(_ type: E.Type, matching query: StorageQuery) async throws -> [E] {
        try query.validate(entityName: E.entityName)
        let entityName = E.entityName
        let table = try table(E.self)
        try await ensureTable(entityName, table: table)
        return try await withCurrentKinds(of: entityName) { kinds, kindRows in
            let (sql, parameters, translation) = selectStatement(
                query, table: table, entityName: entityName, kinds: kinds)
            let (rows, counted) = try await withConnection(entityName: entityName) { connection in
                try Self.rowsAndKindCount(try await PreparedStatements.rows(sql, parameters, on: connection))
            }
            guard try await kindsUnchanged(counted, expected: kindRows, entityName: entityName) else { return .retry }
            var entities: [E] = []
            entities.reserveCapacity(rows.count)
            var failures: [StorageError] = []
            for row in rows {
                do {
                    entities.append(try decode(E.self, row))
                } catch let error as StorageError {
                    failures.append(error)
                }
            }
            try StorageError.throwIfAny(failures, entityName: entityName, location: serverDescription)
            return .answer(translation.isExact ? entities : try query.apply(to: entities))
        }
    }

    /// ``StorageContext/count(_:matching:)``: `count(*)` in SQL when the filter translates
    /// exactly, otherwise the rows SQL selects decoded and checked in Swift.
    public func count<E: Storable>(_ type: E.Type, matching filter: StorageFilter) async throws -> Int {
        let entityName = E.entityName
        let table = try table(E.self)
        try await ensureTable(entityName, table: table)
        let counted: Int? = try await withCurrentKinds(of: entityName) { kinds, kindRows in
            guard let (sql, parameters) = countStatement(filter, table: table, entityName: entityName, kinds: kinds)
            else { return .answer(nil) }
            let (counted, count) = try await withConnection(entityName: entityName) { [parameters] connection in
                guard let row = try await PreparedStatements.rows(sql, parameters, on: connection).first else {
                    return (-1, 0)
                }
                var cells = row.makeIterator()
                guard let kinds = cells.next(), let count = cells.next() else { return (-1, 0) }
                return (try Self.integer(kinds), try Self.integer(count))
            }
            return counted == kindRows ? .answer(count) : .retry
        }
        if let counted { return counted }
        return try StorageQuery(filter: filter).apply(
            to: try await fetch(E.self, matching: StorageQuery(filter: filter))
        ).count
    }

    /// ``StorageContext/delete(_:matching:)``: one `DELETE` when the filter translates exactly;
    /// otherwise, in one transaction, the rows SQL selects are locked, checked in Swift, and those
    /// that match deleted.
    public func delete<E: Storable>(_ type: E.Type, matching filter: StorageFilter) async throws {
        let entityName = E.entityName
        let table = try table(E.self)
        try await ensureTable(entityName, table: table)
        try await withCurrentKinds(of: entityName) { kinds, kindRows -> Attempt<Void> in
            var binds = StatementParameters()
            let entity = binds.append(text: entityName)
            let channel = binds.append(text: PostgresSchema.channel)
            let payload = binds.append(text: notificationPayload(entityName: entityName, keys: nil))
            let expectedKinds = binds.append(integer: kindRows)
            let translation = PostgresQueryTranslation(StorageQuery(filter: filter), kinds: kinds, binds: &binds)
            let condition = translation.condition.map { " AND (\($0))" } ?? ""
            let counting = "(SELECT count(*) FROM \(kindsSchema).daokit_field_kinds WHERE entity_name = \(entity))"
            if translation.conditionIsExact {
                // Deletes nothing unless the kinds are the ones the condition was built for.
                let sql = """
                    WITH gone AS (DELETE FROM \(table) WHERE \(counting) = \(expectedKinds)\(condition) RETURNING 1) \
                    SELECT \(counting), \(notifyCall(channel, payload))::text
                    """
                let statement = PostgresQuery(unsafeSQL: sql, binds: binds.bindings)
                let counted = try await transaction(entityName: entityName) { connection in
                    var counted = -1
                    for try await (count, _) in try await connection.query(statement, logger: Self.logger).decode(
                        (Int, String).self)
                    {
                        counted = count
                    }
                    return counted
                }
                return counted == kindRows ? .answer(()) : .retry
            }
            let select = PostgresQuery(
                unsafeSQL: """
                    SELECT daokit_key, record::text, \(counting) FROM \(table) WHERE TRUE\(condition) FOR UPDATE
                    """, binds: binds.bindings)
            let outcome: Bool = try await transaction(entityName: entityName) { connection in
                let (rows, counted) = try Self.rowsAndKindCount(
                    try await connection.query(select, logger: Self.logger).collect())
                if let counted, counted != kindRows { return false }
                var doomed: [String] = []
                for row in rows {
                    let entity = try self.decode(E.self, row)
                    if try filter.matches(entity) { doomed.append(row.key) }
                }
                var deleteBinds = PostgresBindings()
                deleteBinds.append(doomed)
                deleteBinds.append(PostgresSchema.channel)
                deleteBinds.append(self.notificationPayload(entityName: entityName, keys: doomed.map(Self.storageKey)))
                try await connection.execute(
                    PostgresQuery(
                        unsafeSQL: """
                            WITH gone AS (DELETE FROM \(table) WHERE \(PostgresSchema.keyIsIn("$1::text[]"))) SELECT \(self.notifyCall("$2", "$3"))
                            """, binds: deleteBinds), logger: Self.logger)
                return true
            }
            return outcome ? .answer(()) : .retry
        }
        announce(entityName, storageKeys: nil)
    }

    /// How one attempt of a query ended: with its answer, or seeing other kinds than its SQL was
    /// built for (see the extension's description).
    private enum Attempt<Answer> {
        case answer(Answer)
        case retry
    }

    /// Runs `attempt` with the kinds recorded for the entity until it answers: after a `.retry`,
    /// with the kinds read again from the server.
    private func withCurrentKinds<Answer>(
        of entityName: String,
        _ attempt: (_ kinds: [String: Set<JSONRecord.FieldKind>], _ kindRows: Int) async throws -> Attempt<Answer>
    ) async throws -> Answer {
        var refresh = false
        while true {
            let (kinds, kindRows) = try await self.kinds(of: entityName, refresh: refresh)
            if case .answer(let answer) = try await attempt(kinds, kindRows) { return answer }
            refresh = true
        }
    }

    /// The `SELECT` ``count(_:matching:)`` runs when `filter` translates exactly (`nil` otherwise):
    /// the count of the kinds recorded for the entity, and the count of the rows that match.
    func countStatement(
        _ filter: StorageFilter?, table: String, entityName: String, kinds: [String: Set<JSONRecord.FieldKind>]
    ) -> (sql: String, parameters: StatementParameters)? {
        var parameters = StatementParameters()
        let entity = parameters.append(text: entityName)
        let translation = PostgresQueryTranslation(StorageQuery(filter: filter), kinds: kinds, binds: &parameters)
        guard translation.conditionIsExact else { return nil }
        let sql = """
            SELECT (SELECT count(*) FROM \(kindsSchema).daokit_field_kinds WHERE entity_name = \(entity)), \
            (SELECT count(*) FROM \(table)\(translation.condition.map { " WHERE " + $0 } ?? ""))
            """
        return (sql, parameters)
    }

    /// The `SELECT` ``fetch(_:matching:)`` runs: the rows SQL selects, each with the count of the
    /// kinds recorded for the entity; ordered and paged in SQL only when the translation is exact.
    func selectStatement(
        _ query: StorageQuery, table: String, entityName: String, kinds: [String: Set<JSONRecord.FieldKind>]
    )
        -> (sql: String, parameters: StatementParameters, translation: PostgresQueryTranslation)
    {
        var parameters = StatementParameters()
        let entity = parameters.append(text: entityName)
        let translation = PostgresQueryTranslation(query, kinds: kinds, binds: &parameters)
        var sql =
            "SELECT daokit_key, record::text, (SELECT count(*) FROM \(kindsSchema).daokit_field_kinds WHERE entity_name = \(entity)) FROM \(table)"
        if let condition = translation.condition { sql += " WHERE " + condition }
        if translation.isExact {
            if let ordering = translation.ordering { sql += " ORDER BY " + ordering }
            if let limit = query.limit { sql += " LIMIT " + parameters.append(integer: limit) }
            if query.offset > 0 { sql += " OFFSET " + parameters.append(integer: query.offset) }
        }
        return (sql, parameters, translation)
    }

    /// The rows of a `SELECT daokit_key, record::text, <count of the recorded kinds>`, and the count
    /// the statement saw (`nil` when it returned no row).
    private static func rowsAndKindCount(_ rows: [PostgresRow]) throws -> (rows: [Row], kindCount: Int?) {
        // One count for the whole statement, repeated in every row. The third cell straight from
        // the row: a random-access view would build a column index for every statement.
        let counted = try rows.first?.dropFirst(2).first.map(integer)
        return (rows.map(Row.init), counted)
    }

    /// The integer in an `int8` cell, read from its bytes: postgres-nio asks for every result in
    /// binary, yet labels the columns of a prepared statement's rows as text (it keeps the
    /// description the server gave before the format was chosen), so that its decoding would
    /// read the eight bytes as digits.
    /// - Throws: `PostgresDecodingError` when the cell is not eight bytes of `int8`.
    private static func integer(_ cell: PostgresCell) throws -> Int {
        guard cell.dataType == .int8, var bytes = cell.bytes, bytes.readableBytes == 8,
            let value = bytes.readInteger(as: Int64.self)
        else {
            return try cell.decode(Int.self)
        }
        return Int(value)
    }

    /// Whether the kinds a statement counted (`nil` when it returned no row) are the ones its SQL
    /// was built for. With no row to carry the count, it is read again: kinds only grow, so an
    /// equal count now means an equal count when the statement ran.
    private func kindsUnchanged(_ counted: Int?, expected: Int, entityName: String) async throws -> Bool {
        if let counted { return counted == expected }
        var binds = PostgresBindings()
        binds.append(entityName)
        let statement = PostgresQuery(
            unsafeSQL: "SELECT count(*) FROM \(kindsSchema).daokit_field_kinds WHERE entity_name = $1", binds: binds)
        let now = try await withConnection(entityName: entityName) { connection in
            for try await count in try await connection.query(statement, logger: Self.logger).decode(Int.self) {
                return count
            }
            return -1
        }
        return now == expected
    }
}

extension PostgresStorageContext {
    /// How `query` would run on the entity's table now: what SQL answers and what is left to
    /// Swift. For tests and diagnostics.
    func translation<E: Storable>(of query: StorageQuery, for type: E.Type) async throws -> PostgresQueryTranslation {
        var binds = StatementParameters()
        return PostgresQueryTranslation(
            query, kinds: try await kinds(of: E.entityName, refresh: true).kinds, binds: &binds)
    }

    /// PostgreSQL's plan (`EXPLAIN`) for the `SELECT` that ``fetch(_:matching:)`` runs, with
    /// sequential scans and sorts discouraged (`enable_seqscan`, `enable_sort` off) so that a small
    /// table still shows whether an index can serve it. `generic` explains the plan a prepared
    /// statement settles on after its first runs, made without the parameters' values
    /// (``PreparedStatements``); otherwise the plan for these values. For tests and diagnostics.
    func plan<E: Storable>(of query: StorageQuery, for type: E.Type, generic: Bool = false) async throws -> [String] {
        let table = try table(E.self)
        let kinds = try await kinds(of: E.entityName, refresh: true).kinds
        let (sql, parameters, _) = selectStatement(query, table: table, entityName: E.entityName, kinds: kinds)
        return try await transaction(entityName: E.entityName) { connection in
            try await connection.execute("SET LOCAL enable_seqscan = off", logger: Self.logger)
            try await connection.execute("SET LOCAL enable_sort = off", logger: Self.logger)
            var lines: [String] = []
            guard generic else {
                let explain = PostgresQuery(unsafeSQL: "EXPLAIN " + sql, binds: parameters.bindings)
                for try await line in try await connection.query(explain, logger: Self.logger).decode(String.self) {
                    lines.append(line)
                }
                return lines
            }
            // A generic plan does not look at the values: NULL stands for each.
            try await connection.execute("SET LOCAL plan_cache_mode = force_generic_plan", logger: Self.logger)
            try await connection.execute(
                PostgresQuery(unsafeSQL: "PREPARE daokit_explained AS " + sql), logger: Self.logger)
            let nulls = Array(repeating: "NULL", count: parameters.count).joined(separator: ", ")
            let explain = PostgresQuery(
                unsafeSQL: "EXPLAIN EXECUTE daokit_explained" + (nulls.isEmpty ? "" : "(\(nulls))"))
            for try await line in try await connection.query(explain, logger: Self.logger).decode(String.self) {
                lines.append(line)
            }
            // Outlives the transaction otherwise: a statement belongs to the session.
            try await connection.execute("DEALLOCATE daokit_explained", logger: Self.logger)
            return lines
        }
    }
}
