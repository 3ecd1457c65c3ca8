/// The `dao` command-line tool: `demo`, `inspect`, `dump` and `verify`.
///
/// The executable only forwards its arguments here; tests call ``run(arguments:stdout:stderr:)``
/// directly, with strings as the streams.
///
/// ```swift
/// var output = "", errors = ""
/// let status = DAOCommand.run(arguments: ["verify", "/path/to/store"], stdout: &output, stderr: &errors)
/// ```
public enum DAOCommand {
    /// Runs the tool with `arguments` (without the program name) and returns its exit status:
    /// 0 when the command did its job, 1 when it found or hit a problem (`verify` found damage,
    /// `dump` met an unreadable record, the demo's store failed), 2 when it could not run (wrong
    /// arguments, a missing directory, an unknown entity). Failures are one line on `stderr`;
    /// this function never traps on bad input.
    public static func run(
        arguments: [String],
        stdout: inout some TextOutputStream,
        stderr: inout some TextOutputStream
    ) -> Int32 {
        // The console stores its writers, so they must be escaping closures; they do not outlive
        // this call, which is exactly what `withoutActuallyEscaping` lets us promise.
        withoutActuallyEscaping({ (text: String) in stdout.write(text) }) { output in
            withoutActuallyEscaping({ (text: String) in stderr.write(text) }) { error in
                run(arguments, console: Console(output: output, error: error))
            }
        }
    }

    static func run(_ arguments: [String], console: Console) -> Int32 {
        do {
            return try dispatch(arguments, console: console)
        } catch let error as UsageError {
            console.errorLine(error.message)
            return ExitStatus.usage
        } catch let error as CommandFailure {
            console.errorLine(error.message)
            return ExitStatus.problems
        } catch {
            // Commands translate the errors they expect; this is the net under the rest, so that
            // the user still gets one line rather than a trap.
            console.errorLine("dao: \(error)")
            return ExitStatus.problems
        }
    }

    private static func dispatch(_ arguments: [String], console: Console) throws -> Int32 {
        guard let command = arguments.first else {
            throw UsageError("dao: missing command; the commands are \(commandList) (see 'dao --help')")
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "--help", "-h":
            console.line(HelpText.overview)
            return ExitStatus.success
        case "help":
            return try help(rest, console: console)
        case "demo", "inspect", "dump", "verify":
            let parsed = try CommandArguments(
                rest.filter { command != "demo" || $0 != SQLiteDemoCommand.option }, command: command)
            if parsed.wantsHelp {
                console.line(HelpText.forCommand(command) ?? HelpText.overview)
                return ExitStatus.success
            }
            // An SQLite database file rather than a directory store, or the demo on SQLite.
            if let status = try SQLiteCommands.runIfDatabase(command, rest, console: console) { return status }
            return try runCommand(command, parsed, console: console)
        default:
            if command.hasPrefix("-") {
                throw UsageError("dao: unknown option '\(command)' (see 'dao --help')")
            }
            throw UsageError("dao: unknown command '\(command)'; the commands are \(commandList) (see 'dao --help')")
        }
    }

    private static let commandList = "demo, inspect, dump and verify"

    private static func runCommand(_ command: String, _ arguments: CommandArguments, console: Console) throws -> Int32 {
        switch command {
        case "demo":
            let values = try arguments.checked(command: command, required: [], optional: ["DIR"])
            return try DemoCommand(console: console).run(directory: values.first)
        case "inspect":
            let values = try arguments.checked(command: command, required: ["DIR"])
            return try InspectCommand(console: console).run(directory: values[0])
        case "dump":
            let values = try arguments.checked(command: command, required: ["DIR", "ENTITY"], optional: ["KEY"])
            return try DumpCommand(console: console).run(
                directory: values[0], entity: values[1], key: values.count > 2 ? values[2] : nil)
        default:
            let values = try arguments.checked(command: command, required: ["DIR"])
            return try VerifyCommand(console: console).run(directory: values[0])
        }
    }

    /// `dao help` and `dao help <command>`, for people who type it that way.
    private static func help(_ arguments: [String], console: Console) throws(UsageError) -> Int32 {
        guard let topic = arguments.first else {
            console.line(HelpText.overview)
            return ExitStatus.success
        }
        guard arguments.count == 1, let text = HelpText.forCommand(topic) else {
            throw UsageError(
                "dao help: unknown command '\(arguments.joined(separator: " "))'; the commands are \(commandList)")
        }
        console.line(text)
        return ExitStatus.success
    }
}
