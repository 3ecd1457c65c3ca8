import BenchmarkModels
import DAOKit
import Foundation
import MappingWorkloads

/// How much of a conversion's time Swift's Codable machinery takes by itself: the hand-written
/// translator, a do-nothing coder pair (``CodableFloor``), `EntityMapper` and a JSON round trip, for
/// one `Message` each way. No Codable-based converter can be faster than the floor, so
/// `floor/manual` bounds what `mapper/manual` can reach on this toolchain, and `json/floor` bounds
/// `json/mapper`.
struct CodableFloorRatioSection: RatioSection {
    static let id = "floor"

    let defaultTimingPlan = TimingPlan(rounds: 25, batchDuration: .milliseconds(40), clock: .threadCPUTime)

    private enum Strategy: String, CaseIterable {
        case manual, floor, mapper, json
    }

    private let message = SampleData.message
    private let entity = MessageTranslator.entity(from: SampleData.message)
    private let mapper = EntityMapper()
    private let jsonEncoder = JSONEncoder()
    private let jsonDecoder = JSONDecoder()

    private func name(_ direction: MappingDirection, _ strategy: Strategy) -> String {
        "floor.Message.\(direction.rawValue) \(strategy.rawValue)"
    }

    var variants: [MeasuredVariant] {
        let message = message, entity = entity, mapper = mapper
        let encoder = jsonEncoder, decoder = jsonDecoder
        func p2e(_ strategy: Strategy) -> (Int) throws -> Void {
            switch strategy {
            case .manual: return { for _ in 0..<$0 { consumeOpaquely(MessageTranslator.entity(from: message)) } }
            case .floor: return { for _ in 0..<$0 { consumeOpaquely(try CodableFloor.entity(from: message)) } }
            case .mapper: return { for _ in 0..<$0 { consumeOpaquely(try mapper.map(message, to: MessageEntity.self)) } }
            case .json: return { for _ in 0..<$0 { consumeOpaquely(try decoder.decode(MessageEntity.self, from: encoder.encode(message))) } }
            }
        }
        func e2p(_ strategy: Strategy) -> (Int) throws -> Void {
            switch strategy {
            case .manual: return { for _ in 0..<$0 { consumeOpaquely(MessageTranslator.plain(from: entity)) } }
            case .floor: return { for _ in 0..<$0 { consumeOpaquely(try CodableFloor.plain(from: entity)) } }
            case .mapper: return { for _ in 0..<$0 { consumeOpaquely(try mapper.map(entity, to: Message.self)) } }
            case .json: return { for _ in 0..<$0 { consumeOpaquely(try decoder.decode(Message.self, from: encoder.encode(entity))) } }
            }
        }
        return Strategy.allCases.flatMap { strategy in
            [MeasuredVariant(name: name(.plainToEntity, strategy), run: p2e(strategy)),
             MeasuredVariant(name: name(.entityToPlain, strategy), run: e2p(strategy))]
        }
    }

    /// The floor computes nothing to check; it must only run. The others are checked by the
    /// mapping section.
    func verify() throws {
        _ = try CodableFloor.entity(from: message)
        _ = try CodableFloor.plain(from: entity)
    }

    func report(_ measurements: VariantMeasurements, timedWith plan: TimingPlan, into report: inout RatioReport) throws {
        var table = TextTable(
            title: "Codable floor: a coder pair that does no work but makes every Codable call (\(plan.clock.rawValue),"
                + " median of \(plan.rounds) interleaved rounds). No Codable-based converter can beat the floor.",
            header: ["operation"] + Strategy.allCases.map(\.rawValue) + ["floor/manual", "mapper/floor", "json/floor"])
        for direction in [MappingDirection.plainToEntity, .entityToPlain] {
            func median(_ strategy: Strategy) throws -> Double { try measurements.medianNanoseconds(name(direction, strategy)) }
            let floorOverManual = try median(.floor) / median(.manual)
            let mapperOverFloor = try median(.mapper) / median(.floor)
            let jsonOverFloor = try median(.json) / median(.floor)
            table.rows.append(try ["Message.\(direction.rawValue)"]
                + Strategy.allCases.map { NumberFormatting.nanoseconds(try median($0)) }
                + [NumberFormatting.ratio(floorOverManual), NumberFormatting.ratio(mapperOverFloor), NumberFormatting.ratio(jsonOverFloor)])
            report.addSummaryLine("FLOOR Message.\(direction.rawValue) floor/manual=\(NumberFormatting.ratio(floorOverManual))"
                + " mapper/floor=\(NumberFormatting.ratio(mapperOverFloor)) json/floor=\(NumberFormatting.ratio(jsonOverFloor))")
        }
        report.add(table)
    }
}
