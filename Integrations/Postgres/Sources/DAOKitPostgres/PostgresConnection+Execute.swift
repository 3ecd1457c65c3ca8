import Logging
import PostgresNIO

extension PostgresConnection {
    /// Runs a statement whose rows nobody needs, and returns when the server has finished it.
    ///
    /// postgres-nio's `query` returns as soon as the server starts answering (for a statement
    /// with rows, once it has described them), not when the statement ends. An error the
    /// statement raises later, such as a statement timeout while it waits for a lock, arrives
    /// with the rows: left unread, it is nobody's, and the transaction goes on aborted (every
    /// later statement fails with SQLSTATE 25P02) or, outside one, the call reports success for
    /// a write that never committed. Reading to the end makes that error this call's.
    func execute(_ statement: PostgresQuery, logger: Logger) async throws {
        for try await _ in try await query(statement, logger: logger) {}
    }
}
