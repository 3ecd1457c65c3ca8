#if canImport(Glibc)
    import DAOKitInternals
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs a system call that returns a negative value and sets `errno` on failure, again for as long as
/// a signal interrupts it (`EINTR`), and turns any other failure into a ``FileSystemError`` naming
/// `operation` and `path`. The one place the store retries interrupted calls.
///
/// Calls whose repetition is not harmless (`close`, which releases the descriptor even when it
/// fails; `rename` and `mkdir`, whose second attempt would report the first one's effect) pass
/// `retrying: false` and fail on `EINTR` like on any other error.
@inline(__always)
package func systemCall<Result: BinaryInteger>(
    _ operation: String, _ path: String, retrying: Bool = true, _ call: () -> Result
) throws(FileSystemError) -> Result {
    while true {
        let result = call()
        if result >= 0 { return result }
        let code = errno
        if code != EINTR || !retrying { throw FileSystemError(operation: operation, path: path, code: code) }
    }
}
