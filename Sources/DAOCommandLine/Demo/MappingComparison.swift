import DAOKit
import Foundation

/// Times three ways of converting the same messages Domain → Entity → Domain: the hand-written
/// translator, `EntityMapper`, and a JSON round trip (encode to `Data`, decode as the other type).
///
/// The variants run interleaved, round after round, and each keeps its fastest round: a machine
/// busy with other work slows some rounds down, and interleaving spreads that over all three
/// instead of penalizing whichever ran at the wrong moment. It is a demo-sized measurement; the
/// Benchmarks package has the careful one.
struct MappingComparison {
    struct Timing {
        let name: String
        let nanosecondsPerMessage: Double
    }

    let messages: [Messenger.Message]
    /// Time to spend, after which no new round starts (at least ``minimumRounds`` run).
    let budget: Duration
    static let minimumRounds = 3
    static let maximumRounds = 50

    /// The timings, translator first; and how many rounds ran.
    /// - Throws: ``CommandFailure`` when a variant does not give back the messages it was given,
    ///   since timing a wrong conversion would be meaningless.
    func run() throws -> (timings: [Timing], rounds: Int) {
        let mapper = EntityMapper()
        let encoder = JSONEncoder()
        let decoder = JSONDecoder()
        let variants: [(name: String, convert: (Messenger.Message) throws -> Messenger.Message)] = [
            ("hand-written translator", { MessageTranslator.message(from: MessageTranslator.entity(from: $0)) }),
            (
                "EntityMapper",
                { try mapper.map(try mapper.map($0, to: Messenger.MessageEntity.self), to: Messenger.Message.self) }
            ),
            (
                "JSON round trip",
                { message in
                    let entity = try decoder.decode(Messenger.MessageEntity.self, from: try encoder.encode(message))
                    return try decoder.decode(Messenger.Message.self, from: try encoder.encode(entity))
                }
            ),
        ]
        for variant in variants where try messages.map(variant.convert) != messages {
            throw CommandFailure("dao demo: the \(variant.name) did not give back the messages it was given")
        }

        let clock = ContinuousClock()
        let start = clock.now
        var best = [Duration](repeating: .seconds(3600), count: variants.count)
        var rounds = 0
        while rounds < Self.minimumRounds || (rounds < Self.maximumRounds && start.duration(to: clock.now) < budget) {
            for (index, variant) in variants.enumerated() {
                var checksum = 0
                let elapsed = try clock.measure {
                    for message in messages {
                        let converted = try variant.convert(message)
                        checksum &+= converted.id &+ converted.text.utf8.count
                    }
                }
                // Using the results keeps the optimizer from discarding the work being timed.
                if checksum == .min { throw CommandFailure("dao demo: impossible checksum") }
                best[index] = min(best[index], elapsed)
            }
            rounds += 1
        }
        let timings = zip(variants, best).map { variant, duration in
            Timing(name: variant.name, nanosecondsPerMessage: Double(duration.nanoseconds) / Double(messages.count))
        }
        return (timings, rounds)
    }
}

extension Duration {
    /// The duration in nanoseconds, as a `Double`-friendly integer.
    var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
