import DAOKitStoreFormat
import DAOKit
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Holds the store's advisory lock shared while the tool reads, as the store's own readers do.
///
/// Writers hold `flock(LOCK_EX)` on `<directory>/.lock` for the whole of a write or a batch, so
/// holding it shared means `inspect`, `dump` and `verify` never see a batch half applied by a
/// live process, and never report its journal as unfinished. The lock file is opened read-only
/// and never created: these commands change nothing in the directory.
enum StoreReadLock {
    /// How long to wait for a writer in another process before giving up.
    static let patience: Duration = .seconds(10)

    /// Runs `body` holding the shared lock, or without a lock when the store has no lock file (no
    /// process ever opened it, so none can be writing) or it cannot be opened (then the lock file
    /// is not ours to fix; reading still works).
    /// - Throws: ``CommandFailure`` (exit status 1: the command ran but could not finish) when
    ///   another process keeps the store locked longer than ``patience``.
    static func withSharedLock<T>(directory: String, command: String, _ body: () throws -> T) throws -> T {
        let path = directory + "/" + FileStoreLayout.lockFileName
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return try body() }
        defer { close(descriptor) }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: patience)
        while flock(descriptor, LOCK_SH | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else { return try body() }
            guard clock.now < deadline else {
                throw CommandFailure("dao \(command): \(directory) stayed locked by a writer for \(patience); try again when it is done")
            }
            usleep(20_000)
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
