import Foundation

/// Stops and starts the server the workload runs against, with the `$DAOKIT_PG_CTL` command
/// `Scripts/with-throwaway-server.sh` provides.
enum ServerControl {
    struct Failed: Error { let command: String }

    /// Runs `$DAOKIT_PG_CTL <command>` (`stop` or `start`) and waits for it.
    /// - Throws: ``Failed`` when the command exits with another status than 0.
    static func run(_ command: String) throws {
        let process = Process()
        process.executableURL = URL(
            fileURLWithPath: ProcessInfo.processInfo.environment["DAOKIT_PG_CTL"] ?? "/bin/false")
        process.arguments = [command]
        try process.run()
        // Reaped here: `waitUntilExit()` sometimes never sees this child's exit on Linux.
        var status: Int32 = 0
        while waitpid(process.processIdentifier, &status, 0) == -1 && errno == EINTR {}
        if status != 0 { throw Failed(command: command) }
    }
}
