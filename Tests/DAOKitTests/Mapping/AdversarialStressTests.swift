import Foundation
import Testing

@testable import DAOKit

/// Eight threads map adversarial values at once for a bounded time — containers kept and touched
/// across threads, super coders dropped mid-use, small errors thrown and swallowed at random depths,
/// keys built at run time and written twice, maps re-entered from `encode(to:)` — and every result is
/// the expected value or a `MappingError`. `.ci/run` runs this under AddressSanitizer and
/// ThreadSanitizer, where any unsound read or race is a failure too.
@Suite("Adversarial stress")
struct AdversarialStressTests {
    @Test func eightThreadsMappingAdversarialValuesGetOnlyRightAnswersOrMappingErrors() async throws {
        let kept = SharedKept()
        let deadline = Date().addingTimeInterval(2)
        let outcomes = try await withThrowingTaskGroup(of: StressOutcome.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    try await onThread(stackSize: 8 << 20) { runStress(worker: worker, kept: kept, until: deadline) }
                }
            }
            return try await group.reduce(into: StressOutcome()) { $0.add($1) }
        }
        #expect(outcomes.wrong.isEmpty, "wrong results: \(outcomes.wrong.prefix(5))")
        #expect(outcomes.rounds >= 8 * 10)
        #expect(outcomes.expectedErrors > 0)
    }
}

struct StressOutcome: Sendable {
    var rounds = 0
    var expectedErrors = 0
    var wrong: [String] = []

    mutating func add(_ other: StressOutcome) {
        rounds += other.rounds
        expectedErrors += other.expectedErrors
        wrong += other.wrong
    }
}

/// Containers one thread kept, for the others to misuse.
final class SharedKept: @unchecked Sendable {
    private let lock = NSLock()
    private var keyed: KeyedEncodingContainer<MappingTestKey>?
    private var unkeyedDecoding: (any UnkeyedDecodingContainer)?

    func keep(_ container: KeyedEncodingContainer<MappingTestKey>) { lock.withLock { keyed = container } }
    func keep(_ container: any UnkeyedDecodingContainer) { lock.withLock { unkeyedDecoding = container } }

    /// Uses whatever another thread kept; every use must be refused.
    func misuse() -> Bool {
        let (keyed, unkeyed) = lock.withLock { (self.keyed, self.unkeyedDecoding) }
        var refused = true
        if var keyed {
            refused =
                refused && (try? keyed.encode(1, forKey: MappingTestKey(stringValue: "x"))) == nil
                && keyed.codingPath.isEmpty
        }
        if var unkeyed {
            refused = refused && (try? unkeyed.decode(Int.self)) == nil && unkeyed.codingPath.isEmpty
        }
        return refused
    }
}

private func runStress(worker: Int, kept: SharedKept, until deadline: Date) -> StressOutcome {
    let mapper = EntityMapper()
    var outcome = StressOutcome()
    var round = 0
    while round < 10 || Date() < deadline {
        round += 1
        let seed = worker &* 1_000_003 &+ round
        func check(_ label: String, _ ok: Bool) {
            if !ok { outcome.wrong.append("\(label) worker \(worker) round \(round)") }
        }
        // A keyed container kept past its mapping, then used from here and from other threads.
        _ = try? mapper.map(KeepsKeyed(kept: kept), to: [String: Int].self)
        _ = try? mapper.map(["list": [1, 2, 3]], to: KeepsUnkeyedDecoding.self, keeping: kept)
        check("misuse refused", kept.misuse())
        // Super coders whose coder temporary dies at once.
        let inner = DropsSuperEncoder(inner: Inner(v: seed))
        check("super coder", (try? mapper.map(inner, to: DropsSuperEncoder.self)) == inner)
        let dog = PointDog(x: seed, y: -seed, name: "d\(seed)")
        check("superclass unkeyed", (try? mapper.map(dog, to: PointDog.self)) == dog)
        // Small errors thrown at random depths, sometimes swallowed.
        let depth = seed % 40
        do {
            _ = try mapper.map(
                ThrowsAtDepth(depth: depth, swallowAt: seed % 3 == 0 ? depth / 2 : -1), to: [String: Int].self)
            check("error expected", false)
        } catch let error as MappingError {
            outcome.expectedErrors += 1
            check("error kind", error.kind == .userError)
        } catch {
            check("only MappingError", false)
        }
        // Run-time keys written twice.
        let key = "key_\(seed)_built_at_run_time_long_enough"
        check(
            "repeated key",
            (try? mapper.map(WritesTwice(first: key, firstValue: 1, secondValue: 2), to: [String: Int].self)) == [
                key: 2
            ])
        // A map re-entered from encode(to:).
        check(
            "re-entrant",
            (try? mapper.map(ReentrantValue(seed: seed), to: [String: Int].self)) == ["outer": seed, "inner": seed])
        outcome.rounds += 1
    }
    return outcome
}

struct KeepsKeyed: Encodable {
    let kept: SharedKept
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MappingTestKey.self)
        try container.encode(1, forKey: MappingTestKey(stringValue: "a"))
        kept.keep(container)
    }
}

struct KeepsUnkeyedDecoding: Decodable {
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: MappingTestKey.self)
        let list = try container.nestedUnkeyedContainer(forKey: MappingTestKey(stringValue: "list"))
        Self.target.value?.keep(list)
    }

    static let target = SharedKeptSlot()
}

final class SharedKeptSlot: @unchecked Sendable {
    private let key = ThreadSpecificKept()
    var value: SharedKept? {
        get { key.value }
        set { key.value = newValue }
    }
}

/// Per-thread storage, so that eight threads can each set what `KeepsUnkeyedDecoding` keeps into.
final class ThreadSpecificKept: @unchecked Sendable {
    var value: SharedKept? {
        get { Thread.current.threadDictionary["DAOKitTests.kept"] as? SharedKept }
        set { Thread.current.threadDictionary["DAOKitTests.kept"] = newValue }
    }
}

extension EntityMapper {
    func map<Source: Encodable>(_ value: Source, to type: KeepsUnkeyedDecoding.Type, keeping kept: SharedKept) throws
        -> KeepsUnkeyedDecoding
    {
        KeepsUnkeyedDecoding.target.value = kept
        defer { KeepsUnkeyedDecoding.target.value = nil }
        return try map(value, to: type)
    }
}

/// Nests `depth` levels and throws a payload-free error at the bottom; the level `swallowAt`
/// swallows what comes from below and throws an equal error itself.
struct ThrowsAtDepth: Encodable {
    let depth: Int
    let swallowAt: Int
    func encode(to encoder: any Encoder) throws {
        if depth == 0 { throw Invalid.empty }
        var container = encoder.container(keyedBy: MappingTestKey.self)
        let next = ThrowsAtDepth(depth: depth - 1, swallowAt: swallowAt)
        if depth == swallowAt {
            try? container.encode(next, forKey: MappingTestKey(stringValue: "n"))
            throw Invalid.empty
        }
        try container.encode(next, forKey: MappingTestKey(stringValue: "n"))
    }
}

/// Maps another value from inside its own `encode(to:)`.
struct ReentrantValue: Encodable {
    let seed: Int
    func encode(to encoder: any Encoder) throws {
        let inner = try EntityMapper().map(["inner": seed], to: [String: Int].self)
        var container = encoder.container(keyedBy: MappingTestKey.self)
        try container.encode(seed, forKey: MappingTestKey(stringValue: "outer"))
        try container.encode(inner["inner"] ?? -1, forKey: MappingTestKey(stringValue: "inner"))
    }
}
