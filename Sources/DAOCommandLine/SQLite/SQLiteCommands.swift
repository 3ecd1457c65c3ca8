/// `dao demo --sqlite`, and `dao inspect`, `dump` and `verify` on an SQLite database file: the tool tells a database file
/// from a directory store by itself (``SQLiteStoreFile/isDatabase(_:)``), so the commands and their
/// arguments are the same for both.
enum SQLiteCommands {
    /// Runs `command` when its path argument is a file; `nil` when it is not (a directory store,
    /// a missing path, `--help`), which the directory commands then handle.
    static func runIfDatabase(_ command: String, _ arguments: [String], console: Console) throws -> Int32? {
        if command == "demo" {
            guard arguments.contains(SQLiteDemoCommand.option) else { return nil }
            let parsed = try CommandArguments(arguments.filter { $0 != SQLiteDemoCommand.option }, command: command)
            let values = try parsed.checked(
                command: "demo \(SQLiteDemoCommand.option)", required: [], optional: ["FILE"])
            return try SQLiteDemoCommand(console: console).run(file: values.first)
        }
        let parsed = try CommandArguments(arguments, command: command)
        guard !parsed.wantsHelp, let path = parsed.positionals.first, SQLiteStoreFile.isDatabase(path) else {
            return nil
        }
        switch command {
        case "inspect":
            _ = try parsed.checked(command: command, required: ["DIR"])
            return try SQLiteInspectCommand(console: console).run(try SQLiteStoreFile(path: path, command: command))
        case "dump":
            let values = try parsed.checked(command: command, required: ["DIR", "ENTITY"], optional: ["KEY"])
            return try SQLiteDumpCommand(console: console).run(
                try SQLiteStoreFile(path: path, command: command), entity: values[1],
                key: values.count > 2 ? values[2] : nil)
        case "verify":
            _ = try parsed.checked(command: command, required: ["DIR"])
            return try SQLiteVerifyCommand(console: console).run(try SQLiteStoreFile(path: path, command: command))
        default:
            return nil
        }
    }
}
