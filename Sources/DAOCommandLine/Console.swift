import Foundation

/// Where a command writes: its report to standard output, failures to standard error.
///
/// Commands hold a `Console` rather than the caller's streams so that they can write as they go
/// (the demo prints each step when it happens) without threading two `inout` parameters through
/// every function.
final class Console {
    private let writeOutput: (String) -> Void
    private let writeError: (String) -> Void

    init(output: @escaping (String) -> Void, error: @escaping (String) -> Void) {
        writeOutput = output
        writeError = error
    }

    /// Writes `text` and a newline to standard output.
    func line(_ text: String = "") {
        writeOutput(text + "\n")
    }

    /// Writes `text` and a newline to standard error.
    func errorLine(_ text: String) {
        writeError(text + "\n")
    }
}

/// A `TextOutputStream` over the process's standard output or standard error, for `main.swift`.
///
/// Each write goes straight to the file descriptor, so nothing is lost when the tool exits with
/// `exit(_:)`, and lines from the two streams appear in the order they were written. A write that
/// fails (a closed pipe, say) is dropped rather than trapping: a reporting tool must not crash
/// because its reader went away.
public struct StandardStream: TextOutputStream {
    private let handle: FileHandle

    /// The process's standard output.
    public static var output: StandardStream { StandardStream(handle: .standardOutput) }
    /// The process's standard error.
    public static var error: StandardStream { StandardStream(handle: .standardError) }

    private init(handle: FileHandle) {
        self.handle = handle
    }

    /// Writes `string` as UTF-8, ignoring write errors.
    public mutating func write(_ string: String) {
        try? handle.write(contentsOf: Data(string.utf8))
    }
}
