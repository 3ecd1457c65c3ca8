import DAOKit
import PostgresNIO

/// Turns what postgres-nio throws into the ``StorageError`` DAOKit promises: the entity, the key
/// where there is one, and the server (`postgres://user@host:port/database`) as its location.
///
/// `PSQLError`'s own description hides the server's message (it may carry data); the detail here
/// names what happened — the connection failed or closed, the server refused the login, a
/// statement timed out — with PostgreSQL's SQLSTATE and message, and the `PSQLError` stays the
/// ``StorageError/underlyingError``.
enum PostgresFailure {
    static func storageError(_ error: any Error, server: String, entityName: String?, key: String? = nil) -> any Error {
        if error is StorageError || error is CancellationError { return error }
        if let transaction = error as? PostgresTransactionError {
            let inner = transaction.closureError ?? transaction.beginError ?? transaction.commitError ?? transaction.rollbackError
            if let inner { return storageError(inner, server: server, entityName: entityName, key: key) }
        }
        return StorageError(.io(detail(of: error)), entityName: entityName, key: key, location: server, underlyingError: error)
    }

    /// Whether `error` means the connection's session is over, so nothing more can be sent on
    /// it: the server ended it (an error of severity `FATAL` or `PANIC`, such as a terminated
    /// backend or a shutdown), or the connection failed or closed. An error of severity `ERROR`
    /// fails one statement and leaves the session usable, as does an error thrown by DAOKit's own
    /// code between statements.
    static func endsTheSession(_ error: any Error) -> Bool {
        guard let psql = error as? PSQLError else { return error is CancellationError || error is ConnectionLost }
        guard psql.code == .server else { return true }
        return psql.serverInfo?[.severity] != "ERROR"
    }

    /// What went wrong, in words.
    static func detail(of error: any Error) -> String {
        guard let psql = error as? PSQLError else { return "PostgreSQL: \(error)" }
        var detail: String
        switch psql.code {
        case .server:
            let state = psql.serverInfo?[.sqlState] ?? "?"
            let message = psql.serverInfo?[.message] ?? "no message"
            switch state {
            case "57014": detail = "the server cancelled the statement (statement timeout)"
            case "28P01", "28000": detail = "the server refused the login"
            case "40001", "40P01": detail = "the transaction conflicted with another one"
            default: detail = "the server reported an error"
            }
            detail += " — SQLSTATE \(state): \(message)"
        case .connectionError: detail = "cannot connect to the server"
        case .serverClosedConnection, .uncleanShutdown: detail = "the server closed the connection"
        case .clientClosedConnection, .poolClosed: detail = "the context was closed"
        default: detail = "PostgreSQL client error \(psql.code)"
        }
        if let underlying = psql.underlying { detail += " (\(underlying))" }
        return detail
    }
}
