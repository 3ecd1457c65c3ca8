import Foundation

/// What `ratios` does, from its options to its exit status.
///
/// In the normal mode it (1) makes sure timings run without the malloc interposer's overhead,
/// (2) verifies every variant, (3) counts allocations, (4) times each section's variants
/// interleaved, (5) prints the report. With ``AllocationCountingChild/flag`` it only counts
/// allocations, for a parent doing the rest.
struct RatioCommand {
    enum ExitStatus: Int32 {
        case success = 0
        case wrongResult = 1
        case measurementFailed = 2
        case usage = 64
    }

    let arguments: [String]

    func run() -> ExitStatus {
        // First, before anything is printed: relaunching replaces the process, output included.
        let timedWithInterposer = ensureTimingWithoutInterposer()

        let options: RatioOptions
        let sectionTypes: [any RatioSection.Type]
        do {
            options = try RatioOptions(arguments: arguments)
            sectionTypes = try options.selectedSections()
        } catch {
            printError("\(error)\n\(RatioOptions.usage)")
            return .usage
        }
        if options.showHelp {
            print(RatioOptions.usage)
            return .success
        }
        if options.countAllocationsOnly {
            return countAllocations(sectionTypes)
        }
        return measure(sectionTypes.map { $0.init() }, options: options, timedWithInterposer: timedWithInterposer)
    }

    /// Relaunches without the interposer when it is active and that is possible (Linux). Returns
    /// whether allocations still go through the interposer in this process.
    private func ensureTimingWithoutInterposer() -> Bool {
        guard AllocationCounter.isCountingThisProcess else { return false }
        #if os(Linux)
            // The counting child needs the interposer. A relaunched process that still sees it must
            // not relaunch again, or it would loop; it times with the interposer instead.
            if !arguments.contains(AllocationCountingChild.flag) && !InterposerFreeRelaunch.isRelaunched {
                InterposerFreeRelaunch.relaunch()
            }
        #endif
        return true
    }

    private func countAllocations(_ sections: [any RatioSection.Type]) -> ExitStatus {
        guard AllocationCounter.isCountingThisProcess else {
            printError(
                "error: the malloc interposer does not see this process's allocations, so they cannot be counted")
            return .measurementFailed
        }
        do {
            try AllocationCountingChild.printCounts(for: sections)
            return .success
        } catch {
            printError("error: \(error)")
            return .measurementFailed
        }
    }

    private func measure(_ sections: [any RatioSection], options: RatioOptions, timedWithInterposer: Bool) -> ExitStatus
    {
        let clock = ContinuousClock()
        let start = clock.now
        var report = RatioReport()
        report.addNote(notes(timedWithInterposer: timedWithInterposer))

        for section in sections {
            do {
                try section.verify()
            } catch {
                printError("error: \(section.id): \(error)")
                return .wrongResult
            }
        }
        printProgress("verified: every variant computes what the hand-written code computes")

        var measurements = VariantMeasurements()
        do {
            if timedWithInterposer {
                for section in sections {
                    for variant in section.variants {
                        measurements.allocations[variant.name] =
                            try AllocationCounter.allocationsPerOperation(of: variant, scope: section.allocationScope)
                    }
                }
            } else {
                measurements.allocations = try AllocationCountingChild.run(sectionIDs: sections.map(\.id))
            }
            printProgress("counted allocations")

            for section in sections {
                let plan = options.timingPlan(for: section)
                let variants = section.variants
                let estimate = Int(plan.estimatedDuration(variantCount: variants.count).nanoseconds / 1e9)
                printProgress(
                    "\(section.id): timing \(variants.count) variants × \(plan.rounds) rounds (about \(estimate) s)")
                let timings = try InterleavedTimer(plan: plan).measure(variants) { roundsDone in
                    if roundsDone % 5 == 0 || roundsDone == plan.rounds {
                        printProgress("\(section.id): \(roundsDone)/\(plan.rounds) rounds")
                    }
                }
                measurements.nanoseconds.merge(timings) { _, new in new }
                try section.report(measurements, timedWith: plan, into: &report)
            }
        } catch {
            printError("error: \(error)")
            return .measurementFailed
        }

        let elapsed = (clock.now - start).nanoseconds / 1e9
        printProgress("done in \(Int(elapsed.rounded())) s")
        print(report.rendered())
        return .success
    }

    private func notes(timedWithInterposer: Bool) -> String {
        let timing =
            timedWithInterposer
            ? "Timings include the malloc interposer's cost on every allocation (it could not be bypassed here)."
            : "Timed without the malloc interposer; allocations counted by it in a separate process."
        #if DEBUG
            let build = "DEBUG BUILD: these numbers mean nothing, run with `-c release`"
        #else
            let build = "release build"
        #endif
        return "DAOKit ratios, \(build), \(ProcessInfo.processInfo.activeProcessorCount) cores. \(timing)"
    }
}

/// Progress goes to standard error, unbuffered, so it shows while the report (standard output)
/// stays clean for scripts.
private func printProgress(_ message: String) {
    FileHandle.standardError.write(Data("ratios: \(message)\n".utf8))
}

private func printError(_ message: String) {
    FileHandle.standardError.write(Data("\(message)\n".utf8))
}
