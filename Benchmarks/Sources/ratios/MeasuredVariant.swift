/// One thing `ratios` times and counts allocations for, such as `Message.p2e mapper`.
struct MeasuredVariant {
    /// Unique across all sections: it is how timings and allocation counts (which come from
    /// another process) are matched back to the variant.
    let name: String

    /// Performs the operation `iterations` times. Must consume every result (an opaque sink), so
    /// that the optimizer cannot skip the work being measured.
    let run: (_ iterations: Int) throws -> Void

    /// The clock this variant is timed with, when not its section's (``TimingPlan/clock``): for a
    /// section whose variants need different ones.
    var clock: TimingClock? = nil

    /// The variants it is compared with share this name, when its section's plan keeps groups
    /// together (``TimingPlan/keepsGroupsTogether``); `nil` is a group of its own.
    var group: String? = nil
}
