import DAOKit
import PostgresNIO

extension PostgresStorageContext: ExplainingStorageContext {
    /// How ``fetch(_:matching:)`` (or, when `counting`, ``count(_:matching:)``) would answer
    /// `query` now: the statement, PostgreSQL's plan for it with these values (`EXPLAIN`), the
    /// declared index that plan uses, and whether it reads every row (a sequential scan of the
    /// entity's table). Runs nothing but the `EXPLAIN`.
    /// - Throws: ``StorageError``: an I/O error naming the server when it cannot be reached, or
    ///   the server's error.
    public func explain<E: Storable>(_ query: StorageQuery, counting: Bool, for type: E.Type) async throws
        -> StorageAccess
    {
        let entityName = E.entityName
        let table = try table(E.self)
        try await ensureTable(entityName, table: table)
        let basis = try await currentBasis(of: E.self, query: query)
        var (sql, parameters, _) = selectStatement(query, table: table, entityName: entityName, basis: basis)
        if counting, let count = countStatement(query.filter, table: table, entityName: entityName, basis: basis) {
            (sql, parameters) = count
        }
        let explain = PostgresQuery(unsafeSQL: "EXPLAIN " + sql, binds: parameters.bindings)
        let lines = try await withConnection(entityName: entityName) { connection in
            var lines: [String] = []
            for try await line in try await connection.query(explain, logger: Self.logger).decode(String.self) {
                lines.append(line)
            }
            return lines
        }
        let suffix = "_" + String(PostgresSchema.stableHash(schema + "\u{0}" + entityName), radix: 16)
        let index = E.indexes.indices.first { position in
            lines.contains { $0.contains("daokit_p\(position)\(suffix)") }
        }.map { E.indexes[$0] }
        let scans = lines.contains {
            $0.contains("Seq Scan on \(entityName)") || $0.contains("Seq Scan on \"\(entityName)\"")
        }
        return StorageAccess(
            index: index, scansEveryRecord: scans,
            countsIndexEntries: counting && lines.contains { $0.contains("Index Only Scan") },
            statement: sql, databasePlan: lines)
    }
}
