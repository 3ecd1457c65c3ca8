/// One timed unit of the mapping benchmarks: a model, converted one way, by one strategy.
///
/// The package-benchmark suite and `ratios` both run these, so the two always measure the same work.
public struct MappingWorkload {
    public let model: BenchmarkedModel
    public let direction: MappingDirection
    public let strategy: ConversionStrategy

    /// Performs the conversion `iterations` times on the same sample input, consuming every result.
    ///
    /// The loop lives inside the workload so that a batch costs one indirect call, not one per
    /// conversion: a fast hand-written translator would otherwise be charged for the call overhead.
    public let run: (_ iterations: Int) throws -> Void

    /// Throws a ``MappingMismatch`` unless this conversion gives exactly what the hand-written
    /// translator gives, on every sample (optionals set and `nil`, every message type, empty
    /// arrays). Run it before timing: a fast but wrong conversion must not produce a ratio.
    public let verify: () throws -> Void

    /// `<Model>.<direction> <strategy>`, e.g. `Message.p2e mapper`.
    public var name: String { "\(model.rawValue).\(direction.rawValue) \(strategy.rawValue)" }
}
