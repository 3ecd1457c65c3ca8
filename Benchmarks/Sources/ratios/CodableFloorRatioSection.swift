import BenchmarkModels
import Foundation
import MappingWorkloads

/// How much of a conversion's time Swift's Codable machinery takes by itself: the hand-written
/// translator, a do-nothing coder pair (``CodableFloor``), `EntityMapper` and a JSON round trip, for
/// every model and direction of the mapping section. No Codable-based converter can be faster than
/// the floor, so `floor/manual` bounds what `mapper/manual` can reach on this toolchain, and
/// `json/floor` bounds `json/mapper`.
struct CodableFloorRatioSection: RatioSection {
    static let id = "floor"

    /// 24 variants × 25 rounds × 40 ms: about 24 s of CPU time.
    let defaultTimingPlan = TimingPlan(rounds: 25, batchDuration: .milliseconds(40), clock: .threadCPUTime)

    private enum Strategy: String, CaseIterable {
        case manual, floor, mapper, json
    }

    /// The manual, mapper and JSON workloads are the mapping section's own (checked there, and in
    /// ``verify()``); only the floor's are made here.
    private let workloads = MappingWorkload.catalog(strategies: [.manual, .mapper, .json])

    private func name(_ model: BenchmarkedModel, _ direction: MappingDirection, _ strategy: Strategy) -> String {
        "floor.\(model.rawValue).\(direction.rawValue) \(strategy.rawValue)"
    }

    var variants: [MeasuredVariant] {
        var variants: [MeasuredVariant] = []
        for model in BenchmarkedModel.allCases {
            for direction in MappingDirection.allCases {
                for strategy in Strategy.allCases {
                    variants.append(
                        MeasuredVariant(
                            name: name(model, direction, strategy), run: run(model, direction, strategy)))
                }
            }
        }
        return variants
    }

    private func run(_ model: BenchmarkedModel, _ direction: MappingDirection, _ strategy: Strategy) -> (Int) throws ->
        Void
    {
        guard strategy == .floor else {
            let workload = workloads.first {
                $0.model == model && $0.direction == direction && $0.strategy.rawValue == strategy.rawValue
            }
            return workload?.run ?? { _ in
                throw MissingWorkload(model: model, direction: direction, strategy: strategy.rawValue)
            }
        }
        switch model {
        case .message: return Self.floor(MessageTranslator.self, sample: SampleData.message, direction)
        case .dialog: return Self.floor(DialogTranslator.self, sample: SampleData.dialog, direction)
        }
    }

    /// The floor of one model and direction; generic so that the loop calls the conversion directly.
    private static func floor<Translator: ModelTranslator>(
        _ translator: Translator.Type, sample plain: Translator.Plain, _ direction: MappingDirection
    ) -> (Int) throws -> Void {
        let entity = Translator.entity(from: plain)
        switch direction {
        case .plainToEntity:
            return { for _ in 0..<$0 { consumeOpaquely(try CodableFloor.convert(plain, to: Translator.Entity.self)) } }
        case .entityToPlain:
            return { for _ in 0..<$0 { consumeOpaquely(try CodableFloor.convert(entity, to: Translator.Plain.self)) } }
        case .roundtrip:
            return {
                for _ in 0..<$0 {
                    let stored = try CodableFloor.convert(plain, to: Translator.Entity.self)
                    consumeOpaquely(try CodableFloor.convert(stored, to: Translator.Plain.self))
                }
            }
        }
    }

    /// The floor computes nothing to check; it must only run, once per variant. The others are the
    /// mapping section's workloads, checked again here so this section can run alone.
    func verify() throws {
        for workload in workloads {
            try workload.verify()
        }
        for variant in variants {
            try variant.run(1)
        }
    }

    func report(_ measurements: VariantMeasurements, timedWith plan: TimingPlan, into report: inout RatioReport) throws
    {
        var table = TextTable(
            title: "Codable floor: a coder pair that does no work but makes every Codable call (\(plan.clock.rawValue),"
                + " median of \(plan.rounds) interleaved rounds). No Codable-based converter can beat the floor.",
            header: ["operation"] + Strategy.allCases.map(\.rawValue) + ["floor/manual", "mapper/floor", "json/floor"])
        for model in BenchmarkedModel.allCases {
            for direction in MappingDirection.allCases {
                func median(_ strategy: Strategy) throws -> Double {
                    try measurements.medianNanoseconds(name(model, direction, strategy))
                }
                let operation = "\(model.rawValue).\(direction.rawValue)"
                let floorOverManual = try median(.floor) / median(.manual)
                let mapperOverFloor = try median(.mapper) / median(.floor)
                let jsonOverFloor = try median(.json) / median(.floor)
                table.rows.append(
                    try [operation]
                        + Strategy.allCases.map { NumberFormatting.nanoseconds(try median($0)) }
                        + [
                            NumberFormatting.ratio(floorOverManual), NumberFormatting.ratio(mapperOverFloor),
                            NumberFormatting.ratio(jsonOverFloor),
                        ])
                report.addSummaryLine(
                    "FLOOR \(operation) floor/manual=\(NumberFormatting.ratio(floorOverManual))"
                        + " mapper/floor=\(NumberFormatting.ratio(mapperOverFloor)) json/floor=\(NumberFormatting.ratio(jsonOverFloor))"
                )
            }
        }
        report.add(table)
    }
}

/// A strategy the mapping catalog should have made for the floor section but did not: a bug in
/// the benchmarks, reported when the variant first runs (in ``CodableFloorRatioSection/verify()``).
private struct MissingWorkload: Error, CustomStringConvertible {
    let model: BenchmarkedModel
    let direction: MappingDirection
    let strategy: String
    var description: String { "no \(strategy) workload for \(model.rawValue).\(direction.rawValue)" }
}
