import DAOKit
import Foundation
import PostgresNIO
// For `ConnectionPoolError`, which postgres-nio's pool throws as it is when it refuses a call
// after failing to connect for a while (its "circuit breaker").
import _ConnectionPoolModule

/// Turns what postgres-nio throws into the ``StorageError`` DAOKit promises: the entity, the key
/// where there is one, and the server (`postgres://user@host:port/database`) as its location.
///
/// `PSQLError`'s own description hides the server's message (it may carry data), and so does its
/// description of the errors it wraps. The detail here names what happened — the server cannot
/// be reached, closed the connection, refused the login, cancelled a statement — with the
/// server's own report (SQLSTATE, message, detail, hint) wherever there is one, read from the
/// error and from the errors it wraps; the `PSQLError` stays the ``StorageError/underlyingError``.
enum PostgresFailure {
    /// `error` as a ``StorageError`` of kind `io`, or `transactionConflict` for a serialization
    /// failure or a deadlock the server broke (a ``StorageError`` or a `CancellationError` as it
    /// is). `contextClosed`: whether the context was closed, the only case in which a closed
    /// pool or connection is reported as "the context was closed".
    static func storageError(
        _ error: any Error, server: String, entityName: String?, key: String? = nil,
        contextClosed: Bool = false
    ) -> any Error {
        if error is StorageError || error is CancellationError { return error }
        if let report = ServerReport(error), report.isConflict {
            // Running the same work again is the remedy, as for any transaction conflict.
            return StorageError(
                .transactionConflict(report.sentence), entityName: entityName, key: key, location: server,
                underlyingError: error)
        }
        if let transaction = error as? PostgresTransactionError {
            let inner =
                transaction.closureError ?? transaction.beginError ?? transaction.commitError
                ?? transaction.rollbackError
            if let inner {
                return storageError(
                    inner, server: server, entityName: entityName, key: key, contextClosed: contextClosed)
            }
        }
        return StorageError(
            .io(detail(of: error, contextClosed: contextClosed)), entityName: entityName, key: key, location: server,
            underlyingError: error)
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

    /// Whether `error` — a ``StorageError`` of this package, or what postgres-nio threw — passes
    /// by itself: the server could not be reached or ended the connection (stopped, restarting,
    /// out of connections, network gone), so the same call can succeed later. A statement the
    /// server refused, a record that does not decode, a closed context do not pass.
    static func passes(_ error: any Error) -> Bool {
        if let storage = error as? StorageError {
            guard storage.kind.code == .io, let underlying = storage.underlyingError else { return false }
            return passes(underlying)
        }
        if error is ConnectTimeout || error is ConnectionLost { return true }
        if let pool = error as? ConnectionPoolError { return pool == .connectionCreationCircuitBreakerTripped }
        if let report = ServerReport(error) { return report.isAvailabilityFailure }
        if let psql = error as? PSQLError {
            switch psql.code {
            case .connectionError, .serverClosedConnection, .uncleanShutdown: return true
            // A connection already closing when a statement was sent: the server ended its
            // session (a shutdown), or DAOKit closed it after such a failure.
            case .clientClosedConnection: return true
            default: return false
            }
        }
        if case .connectionClosed? = error as? PostgresError { return true }
        return false
    }

    /// What went wrong, in words, with the server's report wherever there is one.
    static func detail(of error: any Error, contextClosed: Bool = false) -> String {
        if let report = ServerReport(error) { return report.sentence }
        if let psql = error as? PSQLError {
            return detail(code: psql.code, underlying: psql.underlying, contextClosed: contextClosed)
        }
        if let pool = error as? ConnectionPoolError {
            switch pool {
            case .connectionCreationCircuitBreakerTripped:
                return
                    "cannot connect to the server: the pool has failed to connect for a while and refuses calls until it connects again"
            case .poolShutdown:
                return contextClosed ? "the context was closed" : "the connection pool (PostgresClient) is not running"
            case .requestCancelled: return "the call was cancelled while it waited for a connection"
            default: return "PostgreSQL connection pool error: \(pool)"
            }
        }
        if let legacy = error as? PostgresError {
            switch legacy {
            case .connectionClosed: return "the server closed the connection"
            case .protocol(let message): return "PostgreSQL protocol error: \(message)"
            case .server: return "the server reported an error"  // a report without fields
            }
        }
        if let timeout = error as? ConnectTimeout { return timeout.description }
        if let lost = error as? ConnectionLost { return lost.description }
        if let connecting = error as? NIOConnectionError { return reason(connecting) }
        if let system = error as? IOError { return reason(system) }
        // A TLS or other socket error: its own words.
        return String(describing: error)
    }

    /// What a `PSQLError` of `code` wrapping `underlying` means, in words, with the underlying
    /// error's own detail (a server's report of why it ended the session, a socket's reason).
    static func detail(code: PSQLError.Code, underlying: (any Error)?, contextClosed: Bool) -> String {
        var detail: String
        switch code {
        case .connectionError: detail = "cannot connect to the server"
        case .serverClosedConnection, .uncleanShutdown: detail = "the server closed the connection"
        case .clientClosedConnection:
            detail =
                contextClosed ? "the context was closed" : "the connection had closed before the statement was sent"
        case .poolClosed:
            detail = contextClosed ? "the context was closed" : "the connection pool (PostgresClient) is not running"
        case .queryCancelled: detail = "the statement was cancelled"
        case .tooManyParameters: detail = "the statement has more parameters than PostgreSQL accepts (65,535)"
        default: detail = "PostgreSQL client error \(code)"
        }
        if let underlying { detail += ": " + Self.detail(of: underlying, contextClosed: contextClosed) }
        return detail
    }

    /// Why no address of the host took the connection, in the system's words: "Connection
    /// refused (errno 111)", or the name that did not resolve.
    private static func reason(_ error: NIOConnectionError) -> String {
        var reasons: [String] = []
        for failure in error.connectionErrors {
            let reason = (failure.error as? IOError).map(Self.reason) ?? String(describing: failure.error)
            if !reasons.contains(reason) { reasons.append(reason) }
        }
        if reasons.isEmpty, let lookup = error.dnsAError ?? error.dnsAAAAError {
            return "cannot resolve the host name \(error.host): \(lookup)"
        }
        return reasons.isEmpty ? "no address of \(error.host) to connect to" : reasons.joined(separator: "; ")
    }

    /// A failed system call's reason: "Connection refused (errno 111)".
    private static func reason(_ error: IOError) -> String {
        String(cString: strerror(error.errnoCode)) + " (errno \(error.errnoCode))"
    }

    /// An error the server reported, in either of the forms postgres-nio hands it over:
    /// `PSQLError` from statements, `PostgresError` from prepared statements
    /// (``PreparedStatements``), which go through its older interface.
    struct ServerReport {
        var state: String
        var message: String
        var severity: String?
        var detail: String?
        var hint: String?

        init?(_ error: any Error) {
            if let psql = error as? PSQLError, psql.code == .server, let info = psql.serverInfo {
                state = info[.sqlState] ?? "?"
                message = info[.message] ?? "no message"
                severity = info[.severity]
                detail = info[.detail]
                hint = info[.hint]
            } else if case .server(let report)? = error as? PostgresError {
                state = report.fields[.sqlState] ?? "?"
                message = report.fields[.message] ?? "no message"
                severity = report.fields[.severity]
                detail = report.fields[.detail]
                hint = report.fields[.hint]
            } else {
                return nil
            }
        }

        /// Whether the server rolled the statement back to keep transactions apart: a
        /// serialization failure (40001) or a deadlock it broke (40P01).
        var isConflict: Bool { state == "40001" || state == "40P01" }

        /// Whether the report says the server is unavailable for now rather than that the
        /// statement is wrong: a connection failure (class 08), a shutdown or restart (57P01–57P03),
        /// too many connections (53300).
        var isAvailabilityFailure: Bool {
            state.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300"].contains(state)
        }

        /// What happened, then the server's own words:
        /// `the server reported an error — SQLSTATE 42P01: relation "x" does not exist (detail: …; hint: …)`.
        var sentence: String {
            var text: String
            switch state {
            case "57014": text = "the server cancelled the statement (statement timeout)"
            case "28P01", "28000": text = "the server refused the login"
            case "40001", "40P01": text = "the transaction conflicted with another one"
            case "57P01", "57P02": text = "the server is shutting down"
            case "57P03": text = "the server is not accepting connections yet"
            case "53300": text = "the server has no connection to spare"
            default:
                text = state.hasPrefix("08") ? "the connection to the server failed" : "the server reported an error"
            }
            text += " — SQLSTATE \(state): \(message)"
            let extras = [detail.map { "detail: \($0)" }, hint.map { "hint: \($0)" }].compactMap { $0 }
            if !extras.isEmpty { text += " (" + extras.joined(separator: "; ") + ")" }
            return text
        }
    }
}
