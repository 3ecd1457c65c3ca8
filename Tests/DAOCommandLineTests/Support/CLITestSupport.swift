import DAOKit
import DAOKitFileStore
import DAOKitStoreFormat
import Foundation
import Testing

@testable import DAOCommandLine

/// What one run of `dao` produced.
struct CLIRun {
    let status: Int32
    let output: String
    let errors: String

    var outputLines: [String] {
        output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLastIfEmpty
    }
    var errorLines: [String] {
        errors.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLastIfEmpty
    }

    /// Checks the contract of a refused command: status 2, nothing on standard output, and exactly
    /// one line on standard error that starts with `prefix` and is not a trap or a backtrace.
    func expectUsageError(startingWith prefix: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(status == 2, "status \(status), errors: \(errors)", sourceLocation: sourceLocation)
        #expect(output.isEmpty, "unexpected output: \(output)", sourceLocation: sourceLocation)
        #expect(errorLines.count == 1, "expected one line, got: \(errors)", sourceLocation: sourceLocation)
        #expect(
            errors.hasPrefix(prefix), "\(errors.debugDescription) does not start with \(prefix.debugDescription)",
            sourceLocation: sourceLocation)
    }
}

extension Array where Element == String {
    fileprivate var dropLastIfEmpty: [String] { last == "" ? Array(dropLast()) : self }
}

/// Runs the tool in process, through the same entry point as the executable.
func dao(_ arguments: String...) -> CLIRun {
    daoRun(arguments)
}

func daoRun(_ arguments: [String]) -> CLIRun {
    var output = ""
    var errors = ""
    let status = DAOCommand.run(arguments: arguments, stdout: &output, stderr: &errors)
    return CLIRun(status: status, output: output, errors: errors)
}

/// A note: the plain entity most CLI tests store.
struct CLINote: Storable, Equatable {
    static let entityName = "Note"
    var id: String
    var text: String
    var number: Int = 0
}

/// An entity with an integer id and the value kinds whose stored form matters to `dump`.
struct CLIReading: Storable, Equatable {
    static let entityName = "Reading"
    var id: Int
    var value: Double
    var count: Int64
    var taken: Date
    var raw: Data
    var isValid: Bool
    var note: String?
}

/// A fresh store directory under the temporary directory, removed by ``remove()``.
struct CLIStore {
    let url: URL
    var path: String { url.path }

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "daokit-cli-\(UUID().uuidString)", isDirectory: true)
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    /// Runs `body` with a fresh directory (not created yet) and removes it afterwards.
    static func with<T>(_ body: (CLIStore) throws -> T) rethrows -> T {
        let store = CLIStore()
        defer { store.remove() }
        return try body(store)
    }

    func context(_ format: FileStorageContext.RecordFormat = .json) throws -> FileStorageContext {
        try FileStorageContext(directory: url, format: format)
    }

    /// Writes notes `n0`…`n(count-1)` through the real store and returns the context.
    @discardableResult
    func withNotes(_ count: Int = 4, format: FileStorageContext.RecordFormat = .json) throws -> FileStorageContext {
        let context = try self.context(format)
        try context.save((0..<count).map { CLINote(id: "n\($0)", text: "note \($0)", number: $0) })
        return context
    }

    /// The path of note `id`'s record file.
    func notePath(_ id: String, in context: FileStorageContext) -> String {
        context.fileURL(for: CLINote.self, id: id).path
    }

    func write(_ text: String, to relativePath: String) throws {
        try Data(text.utf8).write(to: url.appendingPathComponent(relativePath))
    }

    /// Every file under the directory with its contents (directories as `nil`), to prove that a
    /// command changed nothing.
    func snapshot() throws -> [String: Data?] {
        var result: [String: Data?] = [:]
        for name in try FileManager.default.subpathsOfDirectory(atPath: path) {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path + "/" + name, isDirectory: &isDirectory)
            result[name] = isDirectory.boolValue ? Data?.none : try Data(contentsOf: url.appendingPathComponent(name))
        }
        return result
    }

    /// Writes `.journal` as a batch that stopped half way, with the old contents of each file
    /// (`nil`: the file did not exist before the batch), in DAOKit's own journal format.
    func writeUnfinishedJournal(entityDirectory: String, entries: [(fileName: String, previous: Data?)]) throws {
        let journal = Journal(
            directoryName: entityDirectory,
            entries: entries.map { Journal.Entry(fileName: $0.fileName, previousContents: $0.previous) })
        try journal.serialized().write(to: url.appendingPathComponent(".journal"))
    }
}

/// Parses `text` as JSON with Foundation, to check `dump`'s output independently of the tool's
/// own parser.
func foundationJSON(_ text: String) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
    return try #require(object as? [String: Any])
}

/// The built `dao` executable: `swift build` and `swift test` put it next to the test runner
/// in `.build/<configuration>/`.
func daoExecutableURL() throws -> URL {
    var starts = [URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath(), Bundle.main.bundleURL]
    if let executable = Bundle.main.executableURL { starts.append(executable.resolvingSymlinksInPath()) }
    for start in starts {
        var directory = start.deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = directory.appendingPathComponent("dao")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory),
                !isDirectory.boolValue,
                FileManager.default.isExecutableFile(atPath: candidate.path)
            {
                return candidate
            }
            directory = directory.deletingLastPathComponent()
        }
    }
    throw CLITestFailure("the dao executable was not found near \(CommandLine.arguments[0]); build the package first")
}

/// Runs the built `dao` executable and waits for it.
func daoBinary(_ arguments: [String]) throws -> CLIRun {
    let process = Process()
    process.executableURL = try daoExecutableURL()
    process.arguments = arguments
    // Standard error goes to a file, so that only one pipe needs draining while the child runs.
    let errorsURL = FileManager.default.temporaryDirectory.appendingPathComponent(
        "daokit-cli-stderr-\(UUID().uuidString)")
    guard FileManager.default.createFile(atPath: errorsURL.path, contents: nil) else {
        throw CLITestFailure("cannot create \(errorsURL.path)")
    }
    defer { try? FileManager.default.removeItem(at: errorsURL) }
    let errors = try FileHandle(forWritingTo: errorsURL)
    defer { try? errors.close() }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return CLIRun(
        status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
        errors: String(decoding: try Data(contentsOf: errorsURL), as: UTF8.self))
}

struct CLITestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The first version of a task, for the entity versions `inspect` and `verify` show, in file stores and
/// SQLite alike.
struct CLITaskV1: Storable {
    static let entityName = "Task"
    var id: Int
    var title: String
}

/// The second: `points` added with a default.
struct CLITaskV2: Storable {
    static let entityName = "Task"
    static let schema = EntitySchema(version: 2, steps: [2: [.added("points", default: 0)]])
    var id: Int
    var title: String
    var points: Int
}
