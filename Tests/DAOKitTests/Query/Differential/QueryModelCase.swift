import DAOKitTestSupport
import Foundation

/// A model, as a test argument: its name and a way to run the differential on a context.
struct QueryModelCase: Sendable, CustomStringConvertible {
    let description: String
    let run: @Sendable (_ context: ContextFactory, _ seed: UInt64, _ caseCount: Int) throws -> DifferentialOutcome

    init<Model: DifferentialModel>(_ model: Model.Type) {
        description = Model.name
        run = { context, seed, caseCount in
            try DifferentialRunner.run(Model.self, on: context, seed: seed, caseCount: caseCount)
        }
    }

    /// Every model: one per way a key path can read, or fail to read, a stored field.
    static let all = [
        QueryModelCase(ScalarEdgesModel.self), QueryModelCase(SwappedKeysModel.self),
        QueryModelCase(TransformingCoderModel.self), QueryModelCase(OptionalNestedModel.self),
        QueryModelCase(EventModel.self), QueryModelCase(ClassDomainModel.self),
    ]

    /// The seed of every generated query: `DAOKIT_QUERY_SEED` when set (to reproduce or explore),
    /// else a fixed one, so that every run checks the same queries.
    static let seed: UInt64 = ProcessInfo.processInfo.environment["DAOKIT_QUERY_SEED"].flatMap { UInt64($0) } ?? 8_0008

    /// The seed for one model: the run's seed mixed with the model's name, so models do not share
    /// their random sequences.
    func seed(mixedWith base: UInt64) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a
        for byte in description.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return base ^ hash
    }
}
