import DAOKit

/// The assertions the contract checks are written with. They throw instead of recording, because
/// DAOKitTesting must not depend on a test framework: a check stops at its first failure.
enum Expect {
    static func that(
        _ condition: Bool, _ message: @autoclosure () -> String,
        file: StaticString = #fileID, line: UInt = #line
    ) throws {
        if !condition { throw ExpectationFailure(message: message(), location: location(file, line)) }
    }

    static func equal<T: Equatable>(
        _ actual: T, _ expected: T, _ what: @autoclosure () -> String,
        file: StaticString = #fileID, line: UInt = #line
    ) throws {
        if actual != expected {
            throw ExpectationFailure(
                message: "\(what()): expected \(expected), got \(actual)",
                location: location(file, line))
        }
    }

    /// Runs `body`, which must throw an error for which `matches` is true; returns that error.
    @discardableResult
    static func failure<T>(
        _ what: @autoclosure () -> String,
        file: StaticString = #fileID, line: UInt = #line,
        matching matches: (any Error) -> Bool = { _ in true },
        _ body: () throws -> T
    ) throws -> any Error {
        let result: T
        do {
            result = try body()
        } catch {
            if matches(error) { return error }
            throw ExpectationFailure(
                message: "\(what()): threw an unexpected error: \(error)",
                location: location(file, line))
        }
        throw ExpectationFailure(
            message: "\(what()): expected an error, but it returned \(result)",
            location: location(file, line))
    }

    /// Runs `body`, which must throw a ``StorageError`` of `kind` naming `entityName` and `key`.
    static func storageError<T>(
        _ kind: StorageError.Kind, entityName: String, key: String,
        _ what: @autoclosure () -> String,
        file: StaticString = #fileID, line: UInt = #line,
        _ body: () throws -> T
    ) throws {
        let storageError = try storageErrorKind(kind, what(), file: file, line: line, body)
        try equal(storageError.entityName, entityName, "\(what()): error's entity name", file: file, line: line)
        try equal(storageError.key, key, "\(what()): error's key", file: file, line: line)
    }

    /// Runs `body`, which must throw a ``StorageError`` of `kind`; returns that error.
    @discardableResult
    static func storageErrorKind<T>(
        _ kind: StorageError.Kind, _ what: @autoclosure () -> String,
        file: StaticString = #fileID, line: UInt = #line,
        _ body: () throws -> T
    ) throws -> StorageError {
        let error = try failure(what(), file: file, line: line, matching: { $0 is StorageError }, body)
        let storageError = error as! StorageError  // checked by `matching`
        try equal(storageError.kind, kind, "\(what()): error kind", file: file, line: line)
        return storageError
    }

    /// `File.swift:line`, without the module prefix of `#fileID`.
    private static func location(_ file: StaticString, _ line: UInt) -> String {
        let path = "\(file)"
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return "\(name):\(line)"
    }
}
