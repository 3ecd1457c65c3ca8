/// One part of the ratio report, such as mapping or, later, DAO and file storage.
///
/// To add a section: write a type conforming to this protocol in its own file and list it in
/// ``RatioSections/all()``. `ratios` verifies it, counts its allocations and times its variants
/// (interleaved among themselves), then asks it to report.
protocol RatioSection {
    /// Selects the section on the command line (`ratios mapping`); lowercase, no spaces. Static,
    /// so that sections can be chosen without creating the others (which may set up stores).
    static var id: String { get }

    /// Prepares everything the section measures.
    init()

    /// How long this section's variants are timed unless `--rounds` / `--batch-ms` say otherwise.
    var defaultTimingPlan: TimingPlan { get }

    /// Everything this section times. Names must be unique across all sections.
    var variants: [MeasuredVariant] { get }

    /// Throws unless every variant computes the right result. Runs before anything is timed, so a
    /// broken implementation fails the run instead of producing flattering numbers.
    func verify() throws

    /// Adds this section's tables and summary lines to `report`.
    func report(_ measurements: VariantMeasurements, timedWith plan: TimingPlan, into report: inout RatioReport) throws
}

extension RatioSection {
    var id: String { Self.id }

    /// Whose allocations count as a variant's: a section timed in thread CPU time says its work runs
    /// on the calling thread, so only that thread's allocations are its own; one timed on the wall
    /// clock may hand work to other threads, so all of the process's count.
    var allocationScope: AllocationCounter.Scope {
        switch defaultTimingPlan.clock {
        case .threadCPUTime: .measuringThread
        case .wallClock: .process
        }
    }
}
