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
        for round in 0..<plan.rounds {
            for index in order(ofRound: round, variantCount: variants.count) {
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

    /// The order in which round `round` runs the variants: each round starts from another one, so
    /// that none always runs first; with ``TimingPlan/pairsVariants``, from another pair, with the
    /// two of every pair swapped in every other round.
    private func order(ofRound round: Int, variantCount: Int) -> [Int] {
        guard plan.pairsVariants, variantCount.isMultiple(of: 2) else {
            return (0..<variantCount).map { (round + $0) % variantCount }
        }
        let pairCount = variantCount / 2
        let swapped = !round.isMultiple(of: 2)
        return (0..<pairCount).flatMap { offset -> [Int] in
            let first = 2 * ((round + offset) % pairCount)
            return swapped ? [first + 1, first] : [first, first + 1]
        }
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
