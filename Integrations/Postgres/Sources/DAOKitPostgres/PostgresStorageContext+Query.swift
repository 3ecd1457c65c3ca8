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
///
/// The same holds for the oldest entity version the table stores, for an entity whose older
/// records hold fields otherwise than it reads them (see `PostgresStorageContext+Versions.swift`):
/// the SQL leaves those fields to Swift while older rows exist, each statement reads the oldest
/// version in its own snapshot beside the kinds, and runs again when it differs. Such an entity's
/// `SELECT` always returns a row, which carries the two numbers when no record matches (see
/// ``selectStatement(_:table:entityName:basis:)``); kinds only grow, so for other entities a
/// statement that returned nothing has them read again afterwards.
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
        let versioning = try JSONRecord.Versioning.of(E.self)
        return try await withCurrentBasis(of: E.self, table: table, versioning: versioning, query: query) { basis in
            let (sql, parameters, translation) = selectStatement(
                query, table: table, entityName: entityName, basis: basis)
            let (rows, seen) = try await withConnection(entityName: entityName) { connection in
                try Self.rowsAndBasis(try await PreparedStatements.rows(sql, parameters, on: connection))
            }
            guard try await basisUnchanged(seen, expected: basis, entityName: entityName) else { return .retry }
            var entities: [E] = []
            entities.reserveCapacity(rows.count)
            var failures: [StorageError] = []
            for row in rows {
                do {
                    entities.append(try decode(E.self, row, versioning))
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
        let versioning = try JSONRecord.Versioning.of(E.self)
        let query = StorageQuery(filter: filter)
        let counted: Int? = try await withCurrentBasis(of: E.self, table: table, versioning: versioning, query: query) {
            basis in
            guard let (sql, parameters) = countStatement(filter, table: table, entityName: entityName, basis: basis)
            else { return .answer(nil) }
            let (seen, count) = try await withConnection(entityName: entityName) { [parameters] connection in
                guard let row = try await PreparedStatements.rows(sql, parameters, on: connection).first else {
                    return (QueryBasis.Seen.unknown, 0)
                }
                var cells = row.makeIterator()
                guard let kinds = cells.next(), let oldest = cells.next(), let count = cells.next() else {
                    return (QueryBasis.Seen.unknown, 0)
                }
                return (
                    QueryBasis.Seen(kindRows: try Self.integer(kinds), oldest: try Self.integer(oldest)),
                    try Self.integer(count)
                )
            }
            return basis.matches(seen) ? .answer(count) : .retry
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
        let versioning = try JSONRecord.Versioning.of(E.self)
        let query = StorageQuery(filter: filter)
        try await withCurrentBasis(of: E.self, table: table, versioning: versioning, query: query) {
            basis -> Attempt<Void> in
            var binds = StatementParameters()
            let entity = binds.append(text: entityName)
            let channel = binds.append(text: PostgresSchema.channel)
            let payload = binds.append(text: notificationPayload(entityName: entityName, keys: nil))
            let expectedKinds = binds.append(integer: basis.kindRows)
            let expectedOldest = binds.append(integer: basis.oldest)
            let translation = PostgresQueryTranslation(query, kinds: basis.kinds, binds: &binds)
            let condition = translation.condition.map { " AND (\($0))" } ?? ""
            let counting = "(SELECT count(*) FROM \(kindsSchema).daokit_field_kinds WHERE entity_name = \(entity))"
            let oldest = "(\(basis.oldestSQL))::int8"
            if translation.conditionIsExact {
                // Deletes nothing unless the kinds and the oldest version are the ones the
                // condition was built for.
                let sql = """
                    WITH gone AS (DELETE FROM \(table) WHERE \(counting) = \(expectedKinds) AND \(oldest) = \(expectedOldest)\
                    \(condition) RETURNING 1) \
                    SELECT \(counting), \(oldest), \(notifyCall(channel, payload))::text
                    """
                let statement = PostgresQuery(unsafeSQL: sql, binds: binds.bindings)
                let seen = try await transaction(entityName: entityName) { connection in
                    var seen = QueryBasis.Seen.unknown
                    for try await (count, oldest, _) in try await connection.query(statement, logger: Self.logger)
                        .decode((Int, Int, String).self)
                    {
                        seen = QueryBasis.Seen(kindRows: count, oldest: oldest)
                    }
                    return seen
                }
                return basis.matches(seen) ? .answer(()) : .retry
            }
            let rows = "SELECT \(Row.columns) FROM \(table) WHERE TRUE\(condition) FOR UPDATE"
            let select = PostgresQuery(
                unsafeSQL: Self.guarded(rows, counting: counting, oldest: oldest, always: versioning.changesFields),
                binds: binds.bindings)
            let outcome: Bool = try await transaction(entityName: entityName) { connection in
                let (rows, seen) = try Self.rowsAndBasis(
                    try await connection.query(select, logger: Self.logger).collect())
                if let seen, !basis.matches(seen) { return false }
                var doomed: [String] = []
                for row in rows {
                    let entity = try self.decode(E.self, row, versioning)
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

    /// Runs `attempt` with what the entity's SQL is built on until it answers: after a
    /// `.retry`, with that read again from the server.
    private func withCurrentBasis<E: Storable, Answer>(
        of type: E.Type, table: String, versioning: JSONRecord.Versioning, query: StorageQuery,
        _ attempt: (QueryBasis) async throws -> Attempt<Answer>
    ) async throws -> Answer {
        var refresh = false
        while true {
            let basis = try await queryBasis(
                of: E.self, table: table, versioning: versioning, query: query, refresh: refresh)
            if case .answer(let answer) = try await attempt(basis) { return answer }
            refresh = true
        }
    }

    /// What a query of the entity is built on now (read from the server when `refresh`, or the
    /// first time): the kinds recorded and, for an entity whose older records hold fields
    /// otherwise, the oldest version stored, with the fields such records hold otherwise (every
    /// field `query` names, for records older than a migration step) made ``JSONRecord/FieldKind/opaque``
    /// so that no SQL compares or sorts them.
    func queryBasis<E: Storable>(
        of type: E.Type, table: String, versioning: JSONRecord.Versioning, query: StorageQuery, refresh: Bool
    ) async throws -> QueryBasis {
        let (kinds, kindRows) = try await self.kinds(of: E.entityName, refresh: refresh)
        guard versioning.changesFields else {
            return QueryBasis(kinds: kinds, kindRows: kindRows, oldest: 0, oldestSQL: "0")
        }
        try await ensureVersionIndex(E.entityName, table: table)
        let oldest = try await oldestVersion(E.entityName, table: table, refresh: refresh)
        var queryKinds = kinds
        if oldest > 0 {
            let changed = versioning.fieldsChanged(inRecordsFrom: oldest) ?? Set(query.fields.compactMap(\.keys.first))
            for name in changed { queryKinds[name] = [.opaque] }
        }
        return QueryBasis(
            kinds: queryKinds, kindRows: kindRows, oldest: oldest, oldestSQL: PostgresSchema.oldestVersion(in: table))
    }

    /// The `SELECT` ``count(_:matching:)`` runs when `filter` translates exactly (`nil` otherwise):
    /// the count of the kinds recorded for the entity, the oldest version stored, and the count
    /// of the rows that match.
    func countStatement(
        _ filter: StorageFilter?, table: String, entityName: String, basis: QueryBasis
    ) -> (sql: String, parameters: StatementParameters)? {
        var parameters = StatementParameters()
        let entity = parameters.append(text: entityName)
        let translation = PostgresQueryTranslation(StorageQuery(filter: filter), kinds: basis.kinds, binds: &parameters)
        guard translation.conditionIsExact else { return nil }
        let sql = """
            SELECT (SELECT count(*) FROM \(kindsSchema).daokit_field_kinds WHERE entity_name = \(entity)), \
            (\(basis.oldestSQL))::int8, \
            (SELECT count(*) FROM \(table)\(translation.condition.map { " WHERE " + $0 } ?? ""))
            """
        return (sql, parameters)
    }

    /// The `SELECT` ``fetch(_:matching:)`` runs: the rows SQL selects, each with the count of the
    /// kinds recorded for the entity and the oldest version stored; ordered and paged in SQL only
    /// when the translation is exact.
    func selectStatement(
        _ query: StorageQuery, table: String, entityName: String, basis: QueryBasis
    )
        -> (sql: String, parameters: StatementParameters, translation: PostgresQueryTranslation)
    {
        var parameters = StatementParameters()
        let entity = parameters.append(text: entityName)
        let translation = PostgresQueryTranslation(query, kinds: basis.kinds, binds: &parameters)
        var sql = "SELECT \(Row.columns) FROM \(table)"
        if let condition = translation.condition { sql += " WHERE " + condition }
        if translation.isExact {
            if let ordering = translation.ordering { sql += " ORDER BY " + ordering }
            if let limit = query.limit { sql += " LIMIT " + parameters.append(integer: limit) }
            if query.offset > 0 { sql += " OFFSET " + parameters.append(integer: query.offset) }
        }
        let counting = "(SELECT count(*) FROM \(kindsSchema).daokit_field_kinds WHERE entity_name = \(entity))"
        let guarded = Self.guarded(
            sql, counting: counting, oldest: "(\(basis.oldestSQL))::int8", always: basis.oldestSQL != "0")
        return (guarded, parameters, translation)
    }

    /// `rows`, a `SELECT` of ``Row/columns``, with the count of the recorded kinds (`counting`)
    /// and the oldest version stored (`oldest`) after the columns of each row; and, when
    /// `always`, a row that carries only the two when `rows` selects none.
    ///
    /// `always` joins `rows` to the one row of the two numbers by `LEFT JOIN LATERAL … ON TRUE`.
    /// With no join condition, PostgreSQL has only a nested loop to run it, with the one row
    /// outside, so the rows come out in the order `rows` gives them (its `ORDER BY`).
    static func guarded(_ rows: String, counting: String, oldest: String, always: Bool) -> String {
        guard always else {
            let columns = "SELECT \(Row.columns)"
            return columns + ", \(counting), \(oldest)" + rows.dropFirst(columns.count)
        }
        return """
            SELECT r.*, g.kinds, g.oldest FROM (SELECT \(counting) AS kinds, \(oldest) AS oldest) AS g \
            LEFT JOIN LATERAL (\(rows)) AS r ON TRUE
            """
    }

    /// The rows of a statement ``guarded(_:counting:oldest:always:)`` made, but the one that
    /// holds no record, and what the statement saw (`nil` when it returned no row).
    private static func rowsAndBasis(_ rows: [PostgresRow]) throws -> (rows: [Row], seen: QueryBasis.Seen?) {
        // One count for the whole statement, repeated in every row. The cells straight from the
        // row: a random-access view would build a column index for every statement.
        var seen: QueryBasis.Seen?
        if let first = rows.first {
            var cells = first.dropFirst(4).makeIterator()
            if let kinds = cells.next(), let oldest = cells.next() {
                seen = QueryBasis.Seen(kindRows: try integer(kinds), oldest: try integer(oldest))
            }
        }
        return (rows.lazy.map(Row.init).filter(\.holdsRecord), seen)
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

    /// Whether what a statement saw (`nil` when it returned no row) is what its SQL was built on.
    /// With no row to carry it (an entity whose statements always return one, see
    /// ``guarded(_:counting:oldest:always:)``, has no oldest version to check), the kinds are
    /// read again: they only grow, so an equal count now means an equal count when the statement ran.
    private func basisUnchanged(_ seen: QueryBasis.Seen?, expected: QueryBasis, entityName: String) async throws -> Bool
    {
        if let seen { return expected.matches(seen) }
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
        return now == expected.kindRows
    }
}

extension PostgresStorageContext {
    /// How `query` would run on the entity's table now: what SQL answers and what is left to
    /// Swift. For tests and diagnostics.
    func translation<E: Storable>(of query: StorageQuery, for type: E.Type) async throws -> PostgresQueryTranslation {
        var binds = StatementParameters()
        return PostgresQueryTranslation(
            query, kinds: try await currentBasis(of: E.self, query: query).kinds, binds: &binds)
    }

    /// What a query of the entity is built on, read from the server now.
    func currentBasis<E: Storable>(of type: E.Type, query: StorageQuery) async throws -> QueryBasis {
        let table = try table(E.self)
        try await ensureTable(E.entityName, table: table)
        return try await queryBasis(
            of: E.self, table: table, versioning: try JSONRecord.Versioning.of(E.self), query: query, refresh: true)
    }

    /// PostgreSQL's plan (`EXPLAIN`) for the `SELECT` that ``fetch(_:matching:)`` runs, with
    /// sequential scans and sorts discouraged (`enable_seqscan`, `enable_sort` off) so that a small
    /// table still shows whether an index can serve it. `generic` explains the plan a prepared
    /// statement settles on after its first runs, made without the parameters' values
    /// (``PreparedStatements``); otherwise the plan for these values. For tests and diagnostics.
    func plan<E: Storable>(of query: StorageQuery, for type: E.Type, generic: Bool = false) async throws -> [String] {
        let table = try table(E.self)
        let basis = try await currentBasis(of: E.self, query: query)
        let (sql, parameters, _) = selectStatement(query, table: table, entityName: E.entityName, basis: basis)
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
