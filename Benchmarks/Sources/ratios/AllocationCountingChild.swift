import Foundation

/// Runs the allocation counts in a child process (`ratios --count-allocations`) when this process
/// times without the interposer, and reads the counts back.
///
/// The child prints one line per variant, ``linePrefix`` + name + tab + allocations per operation;
/// anything else it prints is ignored, and its standard error goes to ours.
enum AllocationCountingChild {
    /// The command-line flag that makes `ratios` count allocations instead of timing.
    static let flag = "--count-allocations"
    static let linePrefix = "ALLOCATIONS\t"

    /// Child side: counts every variant of `sections` and prints the result lines.
    ///
    /// Each section is created just before its variants are counted and let go right after, so
    /// that no other section's fixtures (observers, database queues, stores being built) run in
    /// the background while it is counted.
    static func printCounts(for sections: [any RatioSection.Type]) throws {
        for sectionType in sections {
            let section = sectionType.init()
            for variant in section.variants {
                let count = try AllocationCounter.allocationsPerOperation(of: variant, scope: section.allocationScope)
                print("\(linePrefix)\(variant.name)\t\(count)")
            }
        }
    }

    /// Parent side: runs the child for the sections named `sectionIDs` and returns the counts by
    /// variant name.
    static func run(sectionIDs: [String]) throws -> [String: Double] {
        let child = Process()
        child.executableURL =
            Bundle.main.executableURL
            ?? URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = [flag] + sectionIDs
        #if os(Linux)
            child.environment = InterposerFreeRelaunch.environmentWithInterposerActive(
                ProcessInfo.processInfo.environment)
        #endif
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        // Read before waiting: a child blocked on a full pipe would never exit.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        guard child.terminationStatus == 0 else {
            throw AllocationCountingFailed(reason: "the counting process exited with status \(child.terminationStatus)")
        }
        var counts: [String: Double] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.hasPrefix(linePrefix) {
            let fields = line.dropFirst(linePrefix.count).split(separator: "\t")
            guard fields.count == 2, let count = Double(fields[1]) else {
                throw AllocationCountingFailed(reason: "unreadable line from the counting process: \(line)")
            }
            counts[String(fields[0])] = count
        }
        return counts
    }
}

/// Allocations could not be counted; the description says why.
struct AllocationCountingFailed: Error, CustomStringConvertible {
    let reason: String
    var description: String { "cannot count allocations: \(reason)" }
}
