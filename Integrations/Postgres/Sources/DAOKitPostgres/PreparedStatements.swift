import PostgresNIO

/// Named prepared statements for the queries a context runs again and again, kept per pooled
/// connection: PostgreSQL parses a named statement once, and after its first executions runs it
/// on a cached plan when that plan costs no more than planning anew (`plan_cache_mode = auto`).
///
/// Why: an unnamed statement is parsed and planned every time it is bound. For the screen query
/// (one dialog's newest 50 messages) the server's log put parsing and planning at 49 + 67 µs,
/// beside 125 µs to run it — and `pgbench` ran that query in 0.17–0.23 ms prepared against
/// 0.39–0.41 ms unprepared.
///
/// Statements are keyed by their SQL, which holds no constants (the translation binds every one,
/// ``StatementParameters``), so one statement serves every dialog, limit and offset. A connection
/// keeps at most ``limit``; the least recently used one is deallocated to make room. A
/// connection's statements are forgotten when it closes (the server drops them with the session),
/// and the entry holds the connection until then, so that a new connection at the same address
/// never finds them.
///
/// postgres-nio's interface for statements with SQL known only at run time is its older one
/// (`prepare(query:)`, `PreparedQuery`): it binds `PostgresData` and reports server errors as
/// `PostgresError`, which ``PostgresFailure`` reads as it reads `PSQLError`.
enum PreparedStatements {
    /// The most statements one connection keeps.
    static let limit = 64

    /// A connection's statements by SQL, each with when it was last used.
    private struct Prepared {
        let connection: PostgresConnection
        var statements: [String: (query: PreparedQuery, lastUse: UInt64)] = [:]
        var clock: UInt64 = 0
    }

    private static let prepared = Locked<[ObjectIdentifier: Prepared]>([:])

    /// The rows of `sql` with `parameters`, run as a named statement on `connection`, prepared
    /// first if this connection has not prepared it yet.
    ///
    /// The caller must hold `connection` alone (a pooled lease), so that no other call prepares or
    /// deallocates on it meanwhile.
    /// - Throws: what postgres-nio throws: `PostgresError` for an error the server reports,
    ///   `PSQLError` or `PostgresError.connectionClosed` when the connection fails.
    static func rows(_ sql: String, _ parameters: StatementParameters, on connection: PostgresConnection) async throws
        -> [PostgresRow]
    {
        let values = parameters.preparedValues
        let statement = try await statement(sql, on: connection)
        do {
            return try await statement.execute(values).get()
        } catch let error where invalidates(error) {
            // The server no longer has the statement as prepared: prepare it again, once.
            forget(sql, on: connection)
            return try await self.statement(sql, on: connection).execute(values).get()
        }
    }

    /// The prepared statement for `sql` on `connection`: the one kept, or a new one.
    private static func statement(_ sql: String, on connection: PostgresConnection) async throws -> PreparedQuery {
        let id = ObjectIdentifier(connection)
        // Every change below is made in place (`prepared[id]!…`): a copy of the entry, changed and
        // stored back, would copy its dictionary of statements on every query.
        let (kept, isFirst) = prepared.withLock { prepared -> (PreparedQuery?, Bool) in
            guard prepared[id] != nil else {
                prepared[id] = Prepared(connection: connection)
                return (nil, true)
            }
            prepared[id]!.clock &+= 1
            guard let kept = prepared[id]!.statements[sql]?.query else { return (nil, false) }
            prepared[id]!.statements[sql]!.lastUse = prepared[id]!.clock
            return (kept, false)
        }
        if let kept { return kept }
        if isFirst {
            connection.closeFuture.whenComplete { _ in _ = prepared.withLock { $0.removeValue(forKey: id) } }
        }
        let query = try await connection.prepare(query: sql).get()
        let evicted = prepared.withLock { prepared -> PreparedQuery? in
            // No entry: the connection closed meanwhile, and the statement is used this once.
            guard prepared[id] != nil else { return nil }
            var evicted: PreparedQuery?
            if prepared[id]!.statements.count >= limit,
                let oldest = prepared[id]!.statements.min(by: { $0.value.lastUse < $1.value.lastUse })
            {
                evicted = prepared[id]!.statements.removeValue(forKey: oldest.key)?.query
            }
            prepared[id]!.clock &+= 1
            prepared[id]!.statements[sql] = (query, prepared[id]!.clock)
            return evicted
        }
        // A failure here leaves a statement the server keeps until the session ends: harmless.
        if let evicted { try? await evicted.deallocate().get() }
        return query
    }

    /// How many statements `connection` keeps prepared. For tests and diagnostics.
    static func count(on connection: PostgresConnection) -> Int {
        prepared.withLock { $0[ObjectIdentifier(connection)]?.statements.count ?? 0 }
    }

    private static func forget(_ sql: String, on connection: PostgresConnection) {
        prepared.withLock { _ = $0[ObjectIdentifier(connection)]?.statements.removeValue(forKey: sql) }
    }

    /// Whether `error` says the statement is gone or stale: SQLSTATE 26000 (no such prepared
    /// statement, as after `DEALLOCATE ALL`) or 0A000 (its result's columns changed).
    private static func invalidates(_ error: any Error) -> Bool {
        guard let report = PostgresFailure.ServerReport(error) else { return false }
        return report.state == "26000" || report.state == "0A000"
    }
}
