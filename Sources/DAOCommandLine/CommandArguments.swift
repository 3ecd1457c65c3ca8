/// The tool's exit statuses. Scripts rely on them, so they never change meaning.
enum ExitStatus {
    /// The command did its job; `verify` found nothing wrong.
    static let success: Int32 = 0
    /// The command ran but found or hit a problem: `verify` found damage, `dump` met an
    /// unreadable record, the demo's store failed.
    static let problems: Int32 = 1
    /// The command did not run: wrong arguments, a missing directory, an unknown entity.
    static let usage: Int32 = 2
}

/// Why a command cannot run as asked; printed as one line on standard error, exit status 2.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// Why a command stopped part way (an I/O failure in the demo's store, say); printed as one line
/// on standard error, exit status 1.
struct CommandFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// A subcommand's arguments after separating `--help` from the positional ones.
///
/// The tool has no options besides `--help`, so anything else that starts with `-` is a mistake
/// worth reporting rather than a directory name; `--` lets a name that starts with `-` through.
struct CommandArguments {
    let positionals: [String]
    let wantsHelp: Bool

    init(_ arguments: [String], command: String) throws(UsageError) {
        var positionals: [String] = []
        var wantsHelp = false
        var optionsEnded = false
        for argument in arguments {
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                positionals.append(argument)
            } else if argument == "--" {
                optionsEnded = true
            } else if argument == "--help" || argument == "-h" {
                wantsHelp = true
            } else {
                throw UsageError("dao \(command): unknown option '\(argument)' (see 'dao \(command) --help')")
            }
        }
        self.positionals = positionals
        self.wantsHelp = wantsHelp
    }

    /// The positionals, checked against the command's usage: between `required.count` and
    /// `required.count + optional.count` of them.
    func checked(command: String, required: [String], optional: [String] = []) throws(UsageError) -> [String] {
        let usage = (["dao", command] + required + optional.map { "[\($0)]" }).joined(separator: " ")
        if positionals.count < required.count {
            throw UsageError("dao \(command): missing \(required[positionals.count]); usage: \(usage)")
        }
        if positionals.count > required.count + optional.count {
            let extra = positionals[required.count + optional.count]
            throw UsageError("dao \(command): unexpected argument '\(extra)'; usage: \(usage)")
        }
        return positionals
    }
}
