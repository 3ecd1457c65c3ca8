import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call, with the system's own wording ("Permission denied"), which is what a
/// person reading `dao`'s one-line errors needs.
struct SystemError: Error, CustomStringConvertible {
    let code: Int32
    var message: String { String(cString: strerror(code)) }
    var description: String { message }
}

/// The few read-only file operations the inspecting commands need, on POSIX calls so that errors
/// carry `errno` (Foundation's errors on Linux are long, localized and differ from Apple's).
enum ReadOnlyFiles {
    enum Kind: Equatable {
        case missing
        case directory
        case file(size: Int)
        /// A device, socket or FIFO: nothing the store creates, and nothing to open blindly.
        case other
    }

    /// What is at `path`, following symbolic links.
    static func kind(of path: String) throws(SystemError) -> Kind {
        var status = stat()
        guard stat(path, &status) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return .missing }
            throw SystemError(code: errno)
        }
        switch status.st_mode & S_IFMT {
        case S_IFDIR: return .directory
        case S_IFREG: return .file(size: Int(status.st_size))
        default: return .other
        }
    }

    /// The names in a directory, without `.` and `..`, sorted so that output is stable.
    static func names(in path: String) throws(SystemError) -> [String] {
        guard let directory = opendir(path) else { throw SystemError(code: errno) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The whole contents of a regular file.
    static func contents(of path: String) throws(SystemError) -> Data {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw SystemError(code: errno) }
        defer { close(descriptor) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { return data }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError(code: errno)
            }
            data.append(contentsOf: buffer[0..<count])
        }
    }
}
