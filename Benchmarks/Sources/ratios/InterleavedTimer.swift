/// Times variants against each other in one process, interleaved.
///
/// Every round runs one batch of every variant, starting from a different variant each round, and
/// the result of a variant is its median per-operation time across rounds. Interleaving is what
/// makes ratios trustworthy on a shared machine: a burst of load (another build, a thermal dip)
/// slows every variant of the affected rounds alike instead of whichever variant happened to run
/// then, and the medians drop those rounds.
struct InterleavedTimer {
    let plan: TimingPlan

    /// A batch during calibration must last at least this long (in nanoseconds) for its duration to
    /// be a usable estimate of the per-operation time.
    private let calibrationFloor = 2_000_000.0

    /// Median nanoseconds per operation of every variant, by name. `progress` is called after each
    /// round with the number of rounds done.
    func measure(
        _ variants: [MeasuredVariant],
        progress: (_ roundsDone: Int) -> Void = { _ in }
    ) throws -> [String: TimingSummary] {
        guard !variants.isEmpty else { return [:] }
        let iterations = try variants.map { try batchSize(for: $0) }
        var samples = Array(repeating: [Double](), count: variants.count)
        let groups = plan.keepsGroupsTogether ? Self.groups(of: variants) : variants.indices.map { $0..<($0 + 1) }
        for round in 0..<plan.rounds {
            for index in order(ofRound: round, groups: groups) {
                let elapsed = try time(variants[index], iterations: iterations[index])
                samples[index].append(elapsed / Double(iterations[index]))
            }
            progress(round + 1)
        }
        var summaries: [String: TimingSummary] = [:]
        for (variant, variantSamples) in zip(variants, samples) {
            summaries[variant.name] = TimingSummary(samples: variantSamples)
        }
        return summaries
    }

    /// The order in which round `round` runs the variants, given as `groups` (consecutive ranges of
    /// indices, covering every variant once): each round starts from another group, so that none
    /// always runs first, and within a group from another member. Ungrouped, every variant is a
    /// group of its own.
    private func order(ofRound round: Int, groups: [Range<Int>]) -> [Int] {
        (0..<groups.count).flatMap { offset -> [Int] in
            let group = groups[(round + offset) % groups.count]
            return (0..<group.count).map { group.lowerBound + (round + $0) % group.count }
        }
    }

    /// The ranges of consecutive variants that share a ``MeasuredVariant/group`` (`nil`: alone).
    private static func groups(of variants: [MeasuredVariant]) -> [Range<Int>] {
        var groups: [Range<Int>] = []
        for index in variants.indices {
            if let last = groups.last, let group = variants[index].group, variants[last.lowerBound].group == group {
                groups[groups.count - 1] = last.lowerBound..<(index + 1)
            } else {
                groups.append(index..<(index + 1))
            }
        }
        return groups
    }

    /// How many iterations make one batch last about ``TimingPlan/batchDuration``. Doubling from a
    /// single iteration also warms the variant up (caches, lazily built tables, page faults).
    private func batchSize(for variant: MeasuredVariant) throws -> Int {
        var iterations = 1
        while true {
            let elapsed = try time(variant, iterations: iterations)
            if elapsed >= calibrationFloor || iterations >= 1 << 30 {
                let perOperation = max(elapsed / Double(iterations), 1)
                return max(1, Int(plan.batchDuration.nanoseconds / perOperation))
            }
            iterations *= 2
        }
    }

    /// Nanoseconds one batch takes on the variant's clock (the plan's, unless it has its own).
    private func time(_ variant: MeasuredVariant, iterations: Int) throws -> Double {
        let clock = variant.clock ?? plan.clock
        let start = clock.nanosecondsNow()
        try variant.run(iterations)
        return Double(clock.nanosecondsNow() - start)
    }
}
