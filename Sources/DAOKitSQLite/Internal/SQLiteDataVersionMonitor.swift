import DAOKit
import DAOKitInternals

/// Notices commits other connections — other processes, other contexts on the same file — make to
/// an SQLite database: `PRAGMA data_version` on a connection of its own changes whenever another
/// connection commits. Polled on DAOKit's change thread while someone observes (see
/// ``StorageChangeNotifier``); it cannot tell which records changed, so it reports
/// ``StorageChange/everything``.
///
/// Its own connection, not the context's: polling must never wait for the context's lock. The
/// cost is that the context's own commits are noticed too, and announced a second time; an
/// observation whose result did not change delivers nothing for it.
final class SQLiteDataVersionMonitor: ExternalChangeMonitor {
    private let path: String
    /// The connection and the last version read; `nil` between `end()` and `begin()`. Sound as
    /// `Sendable`: the connection never leaves the lock.
    private let state = Locked<(connection: SQLiteConnection, version: Int64)?>(nil)

    init(path: String) {
        self.path = path
    }

    func begin() {
        state.withLock { state in
            guard let connection = try? SQLiteConnection(path: path) else { return }
            state = (connection, Self.version(of: connection) ?? 0)
        }
    }

    func changes() -> [StorageChange] {
        state.withLock { state in
            guard let current = state, let version = Self.version(of: current.connection), version != current.version
            else {
                return []
            }
            state = (current.connection, version)
            return [.everything]
        }
    }

    func end() {
        state.withLock { $0 = nil }
    }

    private static func version(of connection: SQLiteConnection) -> Int64? {
        guard case .integer(let version)? = try? connection.scalar("PRAGMA data_version") else { return nil }
        return version
    }
}
