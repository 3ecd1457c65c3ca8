import Foundation

/// The `DAOKitPostgresWriter` child process: another instance of an app on the same database.
struct WriterProcess {
    let process = Process()
    private let output = Pipe()

    /// Starts the writer with `arguments`, in the test's environment (so on the same server).
    init(_ arguments: [String]) throws {
        try self.init(executable: try Self.executable(), arguments: arguments)
    }

    private init(executable: URL, arguments: [String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = output
        try process.run()
    }

    /// Starts `script` (`with-throwaway-server.sh`) with `arguments`: the writer on a server of its own.
    static func running(script: URL, arguments: [String]) throws -> WriterProcess {
        try WriterProcess(executable: script, arguments: arguments)
    }

    /// Waits for the writer to exit; its last line of output, and whether it exited 0.
    func finish() -> (line: String, succeeded: Bool) {
        let (lines, succeeded) = finishWithEveryLine()
        return (lines.last ?? "", succeeded)
    }

    /// Waits for the writer to exit; every line of its output, and whether it exited 0.
    func finishWithEveryLine() -> (lines: [String], succeeded: Bool) {
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        return (lines, process.terminationStatus == 0)
    }

    /// The executable `swift build`/`swift test` put next to the test runner.
    static func executable() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = directory.appendingPathComponent("DAOKitPostgresWriter")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        throw TestServer.Missing(
            variable: "DAOKitPostgresWriter next to \(CommandLine.arguments[0]) (build the package first)")
    }

    /// The values of `key=value` pairs in a result line.
    static func values(in line: String) -> [String: Int] {
        var values: [String: Int] = [:]
        for pair in line.split(separator: " ") {
            let parts = pair.split(separator: "=")
            if parts.count == 2, let value = Int(parts[1]) { values[String(parts[0])] = value }
        }
        return values
    }
}
