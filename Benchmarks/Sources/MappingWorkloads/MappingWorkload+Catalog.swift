import BenchmarkModels
import DAOKit

extension MappingWorkload {
    /// Every workload, ordered by model, then direction, then strategy in the order given.
    ///
    /// Each call creates fresh converters (one mapper, one pair of JSON and one of plist coders per
    /// model and strategy); every iteration of a workload reuses them, as an app would.
    public static func catalog(
        strategies: [ConversionStrategy] = ConversionStrategy.allCases
    ) -> [MappingWorkload] {
        let all = BenchmarkedModel.allCases.flatMap { model in
            switch model {
            case .message:
                workloads(
                    translator: MessageTranslator.self, model: model, sample: SampleData.message,
                    verificationSamples: [SampleData.message] + SampleData.dialog.messages,
                    strategies: strategies)
            case .dialog:
                workloads(
                    translator: DialogTranslator.self, model: model, sample: SampleData.dialog,
                    verificationSamples: [SampleData.dialog, SampleData.emptyDialog],
                    strategies: strategies)
            }
        }
        func position(_ workload: MappingWorkload) -> [Int] {
            [
                BenchmarkedModel.allCases.firstIndex(of: workload.model) ?? 0,
                MappingDirection.allCases.firstIndex(of: workload.direction) ?? 0,
                strategies.firstIndex(of: workload.strategy) ?? 0,
            ]
        }
        return all.sorted { position($0).lexicographicallyPrecedes(position($1)) }
    }

    private static func workloads<Translator: ModelTranslator>(
        translator: Translator.Type,
        model: BenchmarkedModel,
        sample: Translator.Plain,
        verificationSamples: [Translator.Plain],
        strategies: [ConversionStrategy]
    ) -> [MappingWorkload] {
        typealias Plain = Translator.Plain
        typealias Entity = Translator.Entity
        let context = WorkloadContext<Translator>(
            model: model, sample: sample, verificationSamples: verificationSamples)
        return strategies.flatMap { strategy in
            switch strategy {
            case .manual:
                context.workloads(strategy, ManualConversion<Translator>())
            case .mapper:
                context.workloads(strategy, MapperConversion<Plain, Entity>(mapper: EntityMapper()))
            case .json:
                context.workloads(strategy, JSONConversion<Plain, Entity>())
            case .plist:
                context.workloads(strategy, PropertyListConversion<Plain, Entity>())
            }
        }
    }
}

/// What every workload of one model shares: its samples and its hand-written translator, which is
/// both a timed strategy and the reference the others are checked against.
private struct WorkloadContext<Translator: ModelTranslator> {
    let model: BenchmarkedModel
    let sample: Translator.Plain
    /// Every strategy reads this same entity, made by hand, so e2p compares like with like.
    let sampleEntity: Translator.Entity
    let verificationSamples: [Translator.Plain]

    init(model: BenchmarkedModel, sample: Translator.Plain, verificationSamples: [Translator.Plain]) {
        self.model = model
        self.sample = sample
        self.sampleEntity = Translator.entity(from: sample)
        self.verificationSamples = verificationSamples
    }

    /// The three directions for one conversion. Generic, so that each closure is specialized for the
    /// concrete conversion and calls it directly.
    func workloads<Strategy: Conversion>(
        _ strategy: ConversionStrategy,
        _ conversion: Strategy
    ) -> [MappingWorkload]
    where Strategy.Plain == Translator.Plain, Strategy.Entity == Translator.Entity {
        let plain = sample
        let entity = sampleEntity
        let samples = verificationSamples
        let model = model

        func workload(
            _ direction: MappingDirection,
            run: @escaping (Int) throws -> Void,
            actual: @escaping (Translator.Plain) throws -> Translator.Plain
        ) -> MappingWorkload {
            let name = "\(model.rawValue).\(direction.rawValue) \(strategy.rawValue)"
            return MappingWorkload(model: model, direction: direction, strategy: strategy, run: run) {
                for expected in samples {
                    try Self.check(name, expected: expected) { try actual(expected) }
                }
            }
        }

        return [
            workload(
                .plainToEntity,
                run: { iterations in
                    for _ in 0..<iterations {
                        consumeOpaquely(try conversion.entity(from: plain))
                    }
                },
                // The entity is read back by hand, so every field the conversion set is compared.
                actual: { Translator.plain(from: try conversion.entity(from: $0)) }),
            workload(
                .entityToPlain,
                run: { iterations in
                    for _ in 0..<iterations {
                        consumeOpaquely(try conversion.plain(from: entity))
                    }
                },
                actual: { try conversion.plain(from: Translator.entity(from: $0)) }),
            workload(
                .roundtrip,
                run: { iterations in
                    for _ in 0..<iterations {
                        consumeOpaquely(try conversion.plain(from: conversion.entity(from: plain)))
                    }
                },
                actual: { try conversion.plain(from: conversion.entity(from: $0)) }),
        ]
    }

    private static func check(
        _ name: String,
        expected: Translator.Plain,
        actual: () throws -> Translator.Plain
    ) throws {
        let result: Translator.Plain
        do {
            result = try actual()
        } catch {
            throw MappingMismatch(workload: name, reason: "threw \(error)")
        }
        guard result == expected else {
            throw MappingMismatch(workload: name, reason: "expected \(expected), got \(result)")
        }
    }
}
