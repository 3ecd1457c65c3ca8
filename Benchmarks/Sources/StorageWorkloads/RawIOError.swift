#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A system call of the raw file baseline failed: which call, on which path, and the system's reason.
struct RawIOError: Error, CustomStringConvertible {
    let operation: String
    let path: String
    let code: Int32

    var description: String { "\(operation) failed for \(path): \(String(cString: strerror(code)))" }
}
