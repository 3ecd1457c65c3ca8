/// The command line of `ratios`:
///
///     ratios [<section>...] [--rounds <n>] [--batch-ms <ms>]
///
/// With no section, all run. `--rounds` and `--batch-ms` override every section's timing plan,
/// e.g. `--rounds 5 --batch-ms 10` for a quick smoke run whose numbers are not to be trusted.
struct RatioOptions {
    static let usage = """
        usage: ratios [<section>...] [--rounds <n>] [--batch-ms <ms>]
          sections: \(RatioSections.all().map { $0.id }.joined(separator: ", ")) (default: all)
          --rounds <n>     timing rounds per section (median taken across them)
          --batch-ms <ms>  duration of one batch of one variant in a round
        """

    var sectionIDs: [String] = []
    var rounds: Int?
    var batchMilliseconds: Int?
    /// Internal: set in the child process that counts allocations (see ``AllocationCountingChild``).
    var countAllocationsOnly = false
    var showHelp = false

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "--rounds":
                rounds = try Self.positiveInteger(after: argument, from: &remaining)
            case "--batch-ms":
                batchMilliseconds = try Self.positiveInteger(after: argument, from: &remaining)
            case AllocationCountingChild.flag:
                countAllocationsOnly = true
            case "-h", "--help":
                showHelp = true
            case let option where option.hasPrefix("-"):
                throw UsageError(message: "unknown option \(option)")
            default:
                sectionIDs.append(argument)
            }
        }
    }

    /// The plan a section is timed with: its default, with any command-line override applied.
    func timingPlan(for section: any RatioSection) -> TimingPlan {
        var plan = section.defaultTimingPlan
        if let rounds { plan.rounds = rounds }
        if let batchMilliseconds { plan.batchDuration = .milliseconds(batchMilliseconds) }
        return plan
    }

    /// The sections to run, in report order, not yet created (creating one may set up stores and
    /// start background work); throws for an unknown section name.
    func selectedSections() throws -> [any RatioSection.Type] {
        let all = RatioSections.all()
        for id in sectionIDs where !all.contains(where: { $0.id == id }) {
            throw UsageError(message: "unknown section \(id)")
        }
        return all.filter { sectionIDs.isEmpty || sectionIDs.contains($0.id) }
    }

    private static func positiveInteger(after option: String, from arguments: inout ArraySlice<String>) throws -> Int {
        guard let text = arguments.popFirst(), let value = Int(text), value > 0 else {
            throw UsageError(message: "\(option) needs a positive whole number")
        }
        return value
    }
}

/// A command line `ratios` does not understand.
struct UsageError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
