import BenchmarkModels
import Foundation
import MappingWorkloads

// Runs one mapping workload a given number of times and nothing else, for counting its
// instructions under valgrind's callgrind (see `Scripts/instruction-counts.sh`): instruction counts
// do not depend on what else the machine is doing, so a regression shows without timing noise.
//
//     instructions <Model>.<direction> <strategy> <iterations>
//     instructions --list
//
// Strategies: the mapping section's (manual, mapper, json, plist) and `floor` (``CodableFloor``).
// Every workload is checked first (the floor is only run), so a wrong conversion cannot be counted.

/// The floor workload of one model and direction, as `ratios floor` times it.
func floorRun<Translator: ModelTranslator>(
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

func workloads() -> [String: () throws -> (Int) throws -> Void] {
    var all: [String: () throws -> (Int) throws -> Void] = [:]
    for workload in MappingWorkload.catalog() {
        all[workload.name] = {
            try workload.verify()
            return workload.run
        }
    }
    for model in BenchmarkedModel.allCases {
        for direction in MappingDirection.allCases {
            all["\(model.rawValue).\(direction.rawValue) floor"] = {
                switch model {
                case .message: return floorRun(MessageTranslator.self, sample: SampleData.message, direction)
                case .dialog: return floorRun(DialogTranslator.self, sample: SampleData.dialog, direction)
                }
            }
        }
    }
    return all
}

let arguments = Array(CommandLine.arguments.dropFirst())
let all = workloads()
if arguments == ["--list"] {
    for name in all.keys.sorted() { print(name) }
    exit(0)
}
guard arguments.count == 3, let make = all["\(arguments[0]) \(arguments[1])"], let iterations = Int(arguments[2]),
    iterations >= 0
else {
    FileHandle.standardError.write(
        Data("usage: instructions <Model>.<direction> <strategy> <iterations> | --list\n".utf8))
    exit(2)
}
do {
    let run = try make()
    // One untimed pass, so the first-call costs (metadata, conformance caches, pooled storage)
    // fall on every count alike and cancel out in the script's difference of two counts.
    try run(1)
    try run(iterations)
} catch {
    FileHandle.standardError.write(Data("\(arguments[0]) \(arguments[1]) failed: \(error)\n".utf8))
    exit(1)
}
