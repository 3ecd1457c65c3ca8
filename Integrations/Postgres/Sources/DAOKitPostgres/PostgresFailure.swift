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
        if let report = ServerReport(error) { return report.severity != "ERROR" }
        if error is PSQLError || error is PostgresError { return true }
        return error is CancellationError || error is ConnectionLost
    }

    /// What went wrong, in words.
    static func detail(of error: any Error) -> String {
        var detail: String
        if let report = ServerReport(error) {
            switch report.state {
            case "57014": detail = "the server cancelled the statement (statement timeout)"
            case "28P01", "28000": detail = "the server refused the login"
            case "40001", "40P01": detail = "the transaction conflicted with another one"
            default: detail = "the server reported an error"
            }
            detail += " — SQLSTATE \(report.state): \(report.message)"
        } else if let psql = error as? PSQLError {
            switch psql.code {
            case .connectionError: detail = "cannot connect to the server"
            case .serverClosedConnection, .uncleanShutdown: detail = "the server closed the connection"
            case .clientClosedConnection, .poolClosed: detail = "the context was closed"
            default: detail = "PostgreSQL client error \(psql.code)"
            }
        } else if let legacy = error as? PostgresError {
            switch legacy {
            case .connectionClosed: detail = "the server closed the connection"
            case let .protocol(message): detail = "PostgreSQL protocol error: \(message)"
            case .server: detail = "the server reported an error"  // a report without fields
            }
        } else {
            return "PostgreSQL: \(error)"
        }
        if let underlying = (error as? PSQLError)?.underlying { detail += " (\(underlying))" }
        return detail
    }

    /// The SQLSTATE, message and severity of an error the server reported, in either of the forms
    /// postgres-nio hands it over: `PSQLError` from statements, `PostgresError` from prepared
    /// statements (``PreparedStatements``), which go through its older interface.
    struct ServerReport {
        var state: String
        var message: String
        var severity: String?

        init?(_ error: any Error) {
            if let psql = error as? PSQLError, psql.code == .server {
                state = psql.serverInfo?[.sqlState] ?? "?"
                message = psql.serverInfo?[.message] ?? "no message"
                severity = psql.serverInfo?[.severity]
            } else if case let .server(report)? = error as? PostgresError {
                state = report.fields[.sqlState] ?? "?"
                message = report.fields[.message] ?? "no message"
                severity = report.fields[.severity]
            } else {
                return nil
            }
        }
    }
}
