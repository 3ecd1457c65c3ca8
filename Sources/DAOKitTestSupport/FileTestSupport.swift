import DAOKit
import DAOKitFileStore
import DAOKitStoreFormat
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A plain entity for the file-store tests.
package struct FileNote: Storable, Equatable, Hashable {
    package var id: String
    package var text: String
    package var number: Int = 0

    package init(id: String, text: String, number: Int = 0) {
        self.id = id
        self.text = text
        self.number = number
    }
}

/// A second entity type whose ids overlap `FileNote`'s.
package struct FileTag: Storable, Equatable {
    package var id: String
    package var label: String

    package init(id: String, label: String) {
        self.id = id
        self.label = label
    }
}

/// The record the `DAOKitCrashWriter` child writes; the same fields and entity name.
package struct FileCrashRecord: Storable, Equatable {
    package static var entityName: String { "CrashRecord" }
    package var id: String
    package var generation: Int
    package var payload: String

    package init(id: String, generation: Int, payload: String) {
        self.id = id
        self.generation = generation
        self.payload = payload
    }
}

/// A fresh directory under the system's temporary directory, removed by ``remove()``.
package struct FileTestDirectory {
    package let url: URL
    package var path: String { url.path }

    package init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("daokit-file-\(UUID().uuidString)", isDirectory: true)
    }

    package func remove() {
        // Undo any chmod of the read-only tests first, so the removal works for non-root users too.
        makeWritable()
        try? FileManager.default.removeItem(at: url)
    }

    /// Gives the owner write access to the directory and everything in it again.
    package func makeWritable() {
        _ = chmod(path, 0o755)
        if let names = try? FileManager.default.subpathsOfDirectory(atPath: path) {
            for name in names { _ = chmod(path + "/" + name, 0o755) }
        }
    }

    /// Every file and directory under the directory, with the contents of files (directories as
    /// `nil`), to prove that a call changed nothing. The change log is left out: a write logs what
    /// it is about to change before it finds there is nothing to change (see `ChangeLog`), which
    /// changes no record.
    package func snapshot() throws -> [String: Data?] {
        var result: [String: Data?] = [:]
        for name in fileTreeNames(path) where !name.hasPrefix(FileStoreLayout.changeLogFileName) {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path + "/" + name, isDirectory: &isDirectory)
            result[name] = isDirectory.boolValue ? Data?.none : try Data(contentsOf: url.appendingPathComponent(name))
        }
        return result
    }

    /// Makes the directory and everything in it read-only, as `chmod -R a-w` would.
    package func makeReadOnly() {
        for name in fileTreeNames(path) {
            var info = stat()
            let child = path + "/" + name
            guard stat(child, &info) == 0 else { continue }
            _ = chmod(child, (info.st_mode & S_IFMT) == S_IFDIR ? 0o555 : 0o444)
        }
        _ = chmod(path, 0o555)
    }

    /// Runs `body` with a fresh directory and removes it afterwards.
    package static func with<T>(_ body: (FileTestDirectory) throws -> T) rethrows -> T {
        let directory = FileTestDirectory()
        defer { directory.remove() }
        return try body(directory)
    }
}

extension FileStorageContext {
    /// Every note, sorted by id, for comparing whole states.
    package func notes() throws -> [FileNote] {
        try fetchAll(FileNote.self).sorted { $0.id < $1.id }
    }
}

/// Names in `directory` and its subdirectories, relative to it.
package func fileTreeNames(_ directory: String) -> [String] {
    (try? FileManager.default.subpathsOfDirectory(atPath: directory))?.sorted() ?? []
}

/// Whether the tests run with root's power to ignore permission bits.
package var fileTestsRunAsRoot: Bool { geteuid() == 0 }

/// The `DAOKitCrashWriter` executable that `swift build`/`swift test` put next to the test bundle.
package func crashWriterURL() throws -> URL {
    if let override = ProcessInfo.processInfo.environment["DAOKIT_CRASH_WRITER"] {
        return URL(fileURLWithPath: override)
    }
    var starts: [URL] = [URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()]
    if let executable = Bundle.main.executableURL { starts.append(executable.resolvingSymlinksInPath()) }
    starts.append(Bundle.main.bundleURL)
    for start in starts {
        // Walk up from the test runner (which sits in, or inside a bundle in, .build/<config>/).
        var directory = start.deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = directory.appendingPathComponent("DAOKitCrashWriter")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
    }
    throw FileTestFailure(
        "DAOKitCrashWriter was not found next to \(CommandLine.arguments[0]); build the package first")
}

package struct FileTestFailure: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// A running child process with its standard output readable line by line.
package final class FileChildProcess {
    package let process = Process()
    private let output = Pipe()
    private let errors = Pipe()

    package init(arguments: [String]) throws {
        process.executableURL = try crashWriterURL()
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    /// Blocks until the child prints `line` (true) or closes its output first (false).
    package func waitForLine(_ line: String) -> Bool {
        var seen = ""
        while true {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return false }
            seen += String(decoding: chunk, as: UTF8.self)
            if seen.split(separator: "\n").contains(Substring(line)) { return true }
        }
    }

    /// Waits until the child has printed `count` more lines starting with `prefix`; `false` if it
    /// stopped first.
    package func waitForLines(startingWith prefix: String, count: Int) -> Bool {
        var found = 0
        var partial = ""
        while found < count {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return false }
            let lines = (partial + String(decoding: chunk, as: UTF8.self)).split(
                separator: "\n", omittingEmptySubsequences: false)
            partial = String(lines.last ?? "")
            found += lines.dropLast().filter { $0.hasPrefix(prefix) }.count
        }
        return true
    }

    package func killNow() {
        _ = kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Waits for the child to exit; returns its status and what it wrote to standard error.
    package func wait() -> (status: Int32, errors: String) {
        process.waitUntilExit()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.terminationStatus, text)
    }

    /// Reads the child's standard output to its end, then waits for it to exit; for children
    /// that print little on standard error (its pipe is drained only afterwards).
    package func finish() -> (status: Int32, output: [String], errors: String) {
        let output = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let (status, errors) = wait()
        return (status, output.split(separator: "\n").map(String.init), errors)
    }
}
