import DAOKit
import DAOKitSQL
import Foundation
import Logging
import PostgresNIO
import _ConnectionPoolModule

/// Stores entities on a PostgreSQL server: the same ``BaseDao``s as on SQLite, for apps that run
/// as several instances or want the server's replication and backups.
///
/// ```swift
/// let store = try PostgresStorageContext(configuration: .init(
///     host: "db.internal", username: "app", password: secret, database: "messenger", tls: .require))
/// let messages = BaseDao<Message, MessageEntity>(context: store)   // as with any other context
/// ```
///
/// **Layout.** One table per entity type, created on first use: the storage key and the entity as
/// a `jsonb` record, keyed by the key's SHA-256 so that ids of any length fit; ``Storable/indexes``
/// become expression indexes, on a string's first characters (see `PostgresSchema.swift`). A table
/// of an earlier version's layout is migrated the first time this version uses it.
///
/// **Queries** run in SQL with bound parameters wherever PostgreSQL answers exactly as Swift would
/// (see `PostgresDialect.swift`), and in Swift on the rows SQL narrowed down otherwise.
///
/// **Writes.** A batch, and ``save(_:mode:)``'s id check with its write, is one transaction: all
/// or nothing, also across a dropped connection or a server restart; two instances creating the
/// same id are resolved by the primary key (one gets ``StorageError/Kind/duplicateID``).
///
/// **Live results.** Every commit is announced with `NOTIFY`; while someone observes, the context
/// `LISTEN`s, so ``BaseDao/observe(where:sortedBy:limit:offset:)`` sees other instances' writes.
/// An observation outlives the server stopping or being out of reach: it waits, and delivers its
/// result again once the server answers (see `PostgresChangeListener.swift`); it ends on an error
/// that waiting does not fix, and when the context is closed.
///
/// **Threads.** The `async` methods (``AsyncStorageContext``, which ``BaseDao``'s `async` overloads
/// use) never block a thread. The synchronous methods block the calling thread until the server
/// answers; they may be called from any thread but a SwiftNIO event loop's, where they throw.
///
/// **Transactions** over any entity types: `transaction(_:)` and, for a body that is safe
/// to run again, `transaction(retrying:_:)` (see `PostgresStorageContext+Transactions.swift`).
///
/// **Errors.** Every failure is a ``StorageError`` naming the entity, the key where there is one,
/// and the server (`postgres://user@host:port/database`); a server or connection failure is
/// ``StorageError/Kind/io(_:)`` saying what happened — with the server's SQLSTATE, message,
/// detail and hint where it reported one, and why no connection came where none did — and
/// postgres-nio's `PSQLError` as ``StorageError/underlyingError``; a serialization failure or a
/// deadlock the server broke is ``StorageError/Kind/transactionConflict(_:)`` (nothing of the call
/// was written: run it again). The context recovers when the server is back: the pool opens new
/// connections.
public final class PostgresStorageContext: AsyncStorageContext, Sendable {
    /// The connection pool.
    public let client: PostgresClient
    /// The schema holding the tables.
    public let schema: String
    /// Where errors say the data lives: `postgres://user@host:port/database`.
    public let serverDescription: String
    /// Announces this context's commits and, while someone observes, other instances' (see
    /// "Live results"); `nil` on a transaction's handle, whose writes are announced once, by the
    /// context, when the transaction commits.
    public var changeNotifier: StorageChangeNotifier? { held == nil ? notifier : nil }

    let notifier: StorageChangeNotifier
    let listener: PostgresChangeListener
    let connectTimeout: Duration
    /// How to connect once, to tell why the pool cannot (see ``withConnection(entityName:key:_:)``);
    /// `nil` for a client the app made.
    let connectionConfiguration: PostgresConnection.Configuration?
    /// The task running the pool when this context owns it.
    private let runTask: Task<Void, Never>?
    let state: Locked<State>
    /// On a transaction's handle, the transaction's connection (see `HeldTransaction.swift`);
    /// `nil` on a context.
    let held: HeldTransaction?
    /// On a handle, which level of its transaction it writes in: 0 for the transaction, else a
    /// nested transaction's savepoint.
    let level: UInt64
    /// On a handle, the context that owns the pool: it creates the tables (see ``ensureTable(_:table:)``).
    let root: PostgresStorageContext?

    /// What this context knows of the database: whether its tables exist, and each field's kinds.
    struct State {
        var bootstrapped = false
        var tables: [String: TableState] = [:]
        /// Whether ``close()`` was called: only then is a closed pool "the context was closed".
        var closed = false
    }

    struct TableState {
        var created = false
        var indexesEnsured = false
        /// Each field's kinds as last read, and how many (field, kind) rows that was.
        var kinds: [String: Set<JSONRecord.FieldKind>]?
        var kindRows = 0
        /// The fields that held numbers when this context created the type's unique indexes, whose
        /// expressions read a string there as a non-finite number (see
        /// `PostgresSchema.uniqueExpression(_:numeric:record:)`); the lookups of a violation use them.
        var uniqueNumericFields: Set<String>?
        /// Whether this context indexed the version column (``PostgresSchema/createVersionIndex(_:entityName:schema:)``).
        var versionIndexEnsured = false
        /// The oldest entity version of the table's rows as a query last saw it (0: no rows), for
        /// an entity whose older records hold fields otherwise; `nil` until read.
        var oldestVersion: Int?
    }

    /// A context that connects as `configuration` says, with a pool it owns (closed by
    /// ``close()`` or when the context is released). Connects lazily: an unreachable server fails
    /// the first operation, not this initializer.
    public convenience init(configuration: Configuration) {
        let client = PostgresClient(
            configuration: configuration.clientConfiguration,
            backgroundLogger: Logger(label: "DAOKitPostgres", factory: { _ in SwiftLogNoOpLogHandler() }))
        let runTask = Task(executorPreference: PostgresExecutor.shared) { await client.run() }
        self.init(
            client: client, runTask: runTask, schema: configuration.schema,
            serverDescription: configuration.serverDescription,
            connectTimeout: configuration.connectTimeout, connectionConfiguration: configuration.connectionConfiguration
        )
    }

    /// A context on a pool the app already has and runs (`client.run()` in a task of its own,
    /// as postgres-nio's documentation says); the context never closes it.
    ///
    /// The pool makes progress only while its `run()` task gets a thread: an app that calls the
    /// synchronous methods from Swift concurrency's cooperative threads (which they block) should
    /// give that task an executor of its own (`Task(executorPreference:)`), as the contexts that
    /// own their pool do.
    /// - Parameters:
    ///   - serverDescription: how errors name the server, such as `postgres://app@db:5432/messenger`.
    ///   - connectTimeout: how long an operation waits for a connection before it fails.
    public convenience init(
        client: PostgresClient, schema: String = "public", serverDescription: String = "postgres",
        connectTimeout: Duration = .seconds(10)
    ) {
        self.init(
            client: client, runTask: nil, schema: schema, serverDescription: serverDescription,
            connectTimeout: connectTimeout,
            connectionConfiguration: nil)
    }

    private init(
        client: PostgresClient, runTask: Task<Void, Never>?, schema: String, serverDescription: String,
        connectTimeout: Duration, connectionConfiguration: PostgresConnection.Configuration?
    ) {
        self.connectionConfiguration = connectionConfiguration
        self.client = client
        self.runTask = runTask
        self.schema = schema
        self.serverDescription = serverDescription
        self.connectTimeout = connectTimeout
        let listener = PostgresChangeListener(client: client, schema: schema)
        self.listener = listener
        self.notifier = StorageChangeNotifier(monitor: listener)
        self.state = Locked(State())
        self.held = nil
        self.level = 0
        self.root = nil
    }

    /// A handle on `held` at `level`, begun on `outer` (a context, or the handle of the enclosing
    /// transaction): the same pool, schema and notifier, and what `outer` knows of the tables,
    /// which the handle extends privately until its transaction commits.
    init(handleOn outer: PostgresStorageContext, held: HeldTransaction, level: UInt64) {
        client = outer.client
        runTask = nil
        schema = outer.schema
        serverDescription = outer.serverDescription
        connectTimeout = outer.connectTimeout
        connectionConfiguration = outer.connectionConfiguration
        listener = outer.listener
        notifier = outer.notifier
        state = Locked(outer.state.withLock { $0 })
        self.held = held
        self.level = level
        root = outer.root ?? outer
    }

    deinit {
        // A handle shares its context's listener and pool, and must not stop them.
        if held == nil { listener.stop() }
        runTask?.cancel()
    }

    /// Closes the pool this context owns (not a client it was given): later operations fail
    /// with a ``StorageError`` saying the context was closed, and its observations end with it.
    /// On a transaction's handle, does nothing: the handle owns no pool.
    public func close() {
        if held != nil { return }
        state.withLock { $0.closed = true }
        listener.close()
        runTask?.cancel()
    }

    // MARK: - Names

    /// The entity's table, checked.
    /// - Throws: ``StorageError`` for a reserved or over-long entity name.
    func table<E: Storable>(_ type: E.Type) throws -> String {
        let name = E.entityName
        if name.hasPrefix(PostgresSchema.reservedPrefix) || name.isEmpty || name.utf8.count > 63
            || name.utf8.contains(0)
        {
            throw StorageError(
                .encodingFailed, entityName: name, location: serverDescription, underlyingError: NameRefused(name: name)
            )
        }
        return PostgresSchema.quoted(schema) + "." + PostgresSchema.quoted(name)
    }

    /// A storage key as the `daokit_key` column holds it: NFC, so that ids Swift sees as equal
    /// are one record, as in every context, with NUL escaped (see ``JSONRecord``), which
    /// PostgreSQL's `text` refuses.
    static func columnKey(_ key: String) -> String {
        JSONRecord.escaped(key.utf8.allSatisfy { $0 < 0x80 } ? key : key.precomposedStringWithCanonicalMapping)
    }

    /// The storage key a `daokit_key` value stands for.
    static func storageKey(_ column: String) -> String {
        JSONRecord.unescaped(column)
    }

    /// Runs `body` with a pooled connection (see ``PooledCall``), turning every failure into a
    /// ``StorageError``: after ``connectTimeout`` without a connection, the context connects once
    /// by itself, when it knows how, to say why.
    ///
    /// A connection whose session ended under `body` is closed before it goes back: the error can
    /// reach `body` before the pool has seen the connection close, and the pool would hand the
    /// dead connection to the next call.
    @discardableResult
    func withConnection<T: Sendable>(
        entityName: String?, key: String? = nil,
        _ body: @escaping (PostgresConnection) async throws -> T
    ) async throws -> T {
        if let held {
            return try await held.use(level: level, savepoint: false, entityName: entityName, key: key, body)
        }
        if state.withLock({ $0.closed }) {
            throw StorageError(
                .io("the context was closed"), entityName: entityName, key: key, location: serverDescription)
        }
        do {
            return try await PooledCall.run(on: client, connectTimeout: connectTimeout) { connection in
                do {
                    return try await body(connection)
                } catch {
                    if !(error is CancellationError) && PostgresFailure.endsTheSession(error) {
                        try? await connection.close()
                    }
                    throw error
                }
            }
        } catch let failure
            where failure is ConnectTimeout
            || (failure as? ConnectionPoolError) == .connectionCreationCircuitBreakerTripped
        {
            // The pool says only that it has no connection to give: ask the server why.
            let detail = PostgresFailure.detail(of: failure) + (await diagnosis() ?? "")
            throw StorageError(
                .io(detail), entityName: entityName, key: key, location: serverDescription, underlyingError: failure)
        } catch {
            throw PostgresFailure.storageError(
                error, server: serverDescription, entityName: entityName, key: key,
                contextClosed: state.withLock { $0.closed })
        }
    }

    /// Why the pool has no connection: `": "` and the error of one connection attempt made now,
    /// when the context knows the configuration and the attempt fails.
    private func diagnosis() async -> String? {
        guard let configuration = connectionConfiguration, !state.withLock({ $0.closed }) else { return nil }
        do {
            let connection = try await PostgresConnection.connect(
                configuration: configuration, id: 0, logger: Self.logger)
            try? await connection.close()
            return nil
        } catch {
            return ": " + PostgresFailure.detail(of: error)
        }
    }

    /// Runs `body` in a transaction on one connection: committed when it returns, rolled back
    /// when it throws (or the connection fails, when the server rolls it back).
    ///
    /// Every write runs in one, even a single statement: postgres-nio reports a statement done
    /// when the server has executed it, but a statement outside a transaction block commits only
    /// afterwards (at the protocol's Sync), so a server that stops in between would lose a write
    /// the caller was told had succeeded. `COMMIT`'s answer comes after the commit.
    ///
    /// On a transaction's handle, `body` runs in a savepoint of that transaction instead: what it
    /// wrote is undone when it throws, and the rest of the transaction goes on.
    @discardableResult
    func transaction<T: Sendable>(
        entityName: String?, key: String? = nil,
        _ body: @escaping (PostgresConnection) async throws -> T
    ) async throws -> T {
        if let held {
            if let entityName {
                held.recordAttempt(on: PostgresSchema.quoted(schema) + "." + PostgresSchema.quoted(entityName))
            }
            return try await held.use(level: level, savepoint: true, entityName: entityName, key: key, body)
        }
        return try await withConnection(entityName: entityName, key: key) { connection in
            try await connection.execute("BEGIN", logger: Self.logger)
            do {
                let result = try await body(connection)
                try await connection.execute("COMMIT", logger: Self.logger)
                return result
            } catch {
                // A session the server ended (a FATAL error: terminated, shut down) has rolled the
                // transaction back itself, and a statement sent to it while postgres-nio is still
                // closing it may never be answered: close it rather than ask it to roll back.
                if PostgresFailure.endsTheSession(error) {
                    try? await connection.close()
                    throw error
                }
                do {
                    try await connection.execute("ROLLBACK", logger: Self.logger)
                } catch {
                    // A connection left inside a failed transaction must not go back to the pool,
                    // where it would fail every later statement: closing it makes the pool drop it.
                    try? await connection.close()
                }
                throw error
            }
        }
    }

    static let logger = Logger(label: "DAOKitPostgres", factory: { _ in SwiftLogNoOpLogHandler() })
}

/// No pooled connection came in time.
struct ConnectTimeout: Error, CustomStringConvertible {
    let timeout: Duration
    var description: String { "no connection to the server within \(timeout)" }
}

/// Why an entity name cannot be a table name here.
struct NameRefused: Error, CustomStringConvertible {
    let name: String
    var description: String {
        "entity names must be 1 to 63 bytes without NUL and must not start with \(PostgresSchema.reservedPrefix) (got \(name.debugDescription))"
    }
}

/// A value guarded by a lock.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
