import Foundation
import Testing

@testable import DAOKit

/// Codable lets user code keep encoders, decoders and containers past the call they were made for.
/// The mapper reuses its coders and storage, so each of these must be refused once its mapping
/// (or nesting level) is over — never crash, never read or write another mapping's data.
@Suite("Coder misuse")
struct CoderMisuseTests {
    let mapper = EntityMapper()

    @Test func anEncoderKeptAfterEncodeToCannotWriteIntoALaterMapping() throws {
        let keeper = EncoderKeeper()
        _ = try mapper.map(KeepsEncoder(keeper: keeper), to: [String: Int].self)
        // Used inside a later mapping, the kept encoder must not inject anything into it.
        let later = try mapper.map(UsesKeptEncoder(keeper: keeper), to: [String: Int].self)
        #expect(later == ["own": 5])
        #expect(keeper.lateWriteFailed)
        // And outside any mapping it must neither trap nor write.
        #expect(throws: EncodingError.self) { try keeper.writeThroughKeptEncoder() }
    }

    @Test func aDecoderKeptAfterInitFromCannotReadALaterMapping() throws {
        let keeper = DecoderKeeper()
        _ = try mapper.map(["a": 1], to: KeepsDecoder.self, keeping: keeper)
        let probe = try mapper.map(["secret": 42], to: ReadsKeptDecoder.self, keeping: keeper)
        #expect(probe.sawKeys == nil)
        #expect(throws: DecodingError.self) { _ = try keeper.decoder?.container(keyedBy: MappingKey.self) }
    }

    @Test func aKeptSuperEncoderCannotWriteIntoALaterMapping() throws {
        let keeper = EncoderKeeper()
        _ = try mapper.map(KeepsSuperEncoder(keeper: keeper), to: [String: [String: Int]].self)
        let later = try mapper.map(UsesKeptEncoder(keeper: keeper), to: [String: Int].self)
        #expect(later == ["own": 5])
        #expect(keeper.lateWriteFailed)
        #expect(throws: EncodingError.self) { try keeper.writeThroughKeptEncoder() }
    }

    @Test func aKeptSuperDecoderCannotReadALaterMapping() throws {
        let keeper = DecoderKeeper()
        _ = try mapper.map(["super": ["a": 1]], to: KeepsSuperDecoder.self, keeping: keeper)
        _ = try mapper.map(["super": ["xyz": 2]], to: [String: [String: Int]].self)
        #expect(throws: DecodingError.self) { _ = try keeper.decoder?.container(keyedBy: MappingKey.self) }
    }

    @Test func aContainerKeptFromAReentrantMappingIsRefusedWithoutTouchingItsFreedEncoder() throws {
        let keeper = ContainerKeeper()
        // The inner mapping runs on a session of its own, freed when it returns.
        _ = try mapper.map(MapsInside(keeper: keeper), to: [String: Int].self)
        #expect(throws: EncodingError.self) { try keeper.writeLate() }
        #expect(throws: EncodingError.self) { try keeper.writeThroughNestedContainers() }
        var container = try #require(keeper.container)
        var superEncoder = container.superEncoder().singleValueContainer()
        #expect(throws: EncodingError.self) { try superEncoder.encode(1) }
    }

    @Test func aContainerKeptFromDeepInsideADeepValueIsRefused() async throws {
        let keeper = ContainerKeeper()
        try await Task.detached { _ = try EntityMapper().map(DeepKeeper(depth: 300, keeper: keeper), to: Skip.self) }
            .value
        #expect(throws: EncodingError.self) { try keeper.writeLate() }
        var container = try #require(keeper.container)
        var superEncoder = container.superEncoder().singleValueContainer()
        #expect(throws: EncodingError.self) { try superEncoder.encode(1) }
    }

    @Test func encodeToRunsOncePerLevelEvenForDeepValues() throws {
        let counter = CallCounter()
        _ = try mapper.map(CountingNest(depth: 400, counter: counter), to: NestCounter.self)
        #expect(counter.count == 401)
    }

    @Test func aSecondKindOfContainerForOneValueIsReportedAsCorruptData() throws {
        let error = try #require(throws: MappingError.self) { try mapper.map(TwoKinds(), to: [String: Int].self) }
        guard let message = error.kind.message else {
            Issue.record("expected dataCorrupted, got \(error.kind)")
            return
        }
        #expect(message.contains("keyed container after storing another kind of value"))
    }

    @Test func aKeyWrittenTwiceKeepsItsLastValueAsInJSON() throws {
        let json = try JSONDecoder().decode(OnlyA.self, from: JSONEncoder().encode(WritesATwice()))
        let mapped = try mapper.map(WritesATwice(), to: OnlyA.self)
        #expect(mapped.a == json.a)
        #expect(mapped.a == 2)
        #expect(try EntityMapper(strict: true).map(WritesATwice(), to: OnlyA.self).a == 2)
        #expect(try mapper.map(WritesATwice(), to: [String: Int].self) == ["a": 2])
    }

    @Test func anErrorSwallowedByTryDoesNotLendItsPathToALaterOne() throws {
        let error = try #require(throws: MappingError.self) {
            try mapper.map(SwallowsThenThrows(), to: [String: Int].self)
        }
        #expect(error.kind == .userError)
        #expect(error.underlyingError as? ValidationError == .negative(-7))
        #expect(error.path == "<root>")
    }
}

// MARK: - Fixtures

final class EncoderKeeper: @unchecked Sendable {
    var encoder: (any Encoder)?
    var lateWriteFailed = false

    func writeThroughKeptEncoder() throws {
        guard let encoder else { return }
        var single = encoder.singleValueContainer()
        try single.encode(666)
    }
}

struct KeepsEncoder: Encodable {
    let keeper: EncoderKeeper
    func encode(to encoder: any Encoder) throws {
        keeper.encoder = encoder
        var container = encoder.container(keyedBy: MappingKey.self)
        try container.encode(1, forKey: MappingKey(stringValue: "kept"))
    }
}

/// Encodes its own field, then tries to write through the encoder another mapping kept.
struct UsesKeptEncoder: Encodable {
    let keeper: EncoderKeeper
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MappingKey.self)
        try container.encode(5, forKey: MappingKey(stringValue: "own"))
        if let kept = keeper.encoder {
            var injected = kept.container(keyedBy: MappingKey.self)
            do {
                try injected.encode(666, forKey: MappingKey(stringValue: "injected"))
            } catch {
                keeper.lateWriteFailed = true
            }
        }
    }
}

final class KeepsSuperEncoderBase: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MappingKey.self)
        try container.encode(1, forKey: MappingKey(stringValue: "base"))
    }
}

struct KeepsSuperEncoder: Encodable {
    let keeper: EncoderKeeper
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MappingKey.self)
        let superEncoder = container.superEncoder()
        keeper.encoder = superEncoder
        try KeepsSuperEncoderBase().encode(to: superEncoder)
    }
}

final class DecoderKeeper: @unchecked Sendable {
    var decoder: (any Decoder)?
}

struct KeepsDecoder: Decodable {
    init(from decoder: any Decoder) throws {
        _ = try decoder.container(keyedBy: MappingKey.self).decode(Int.self, forKey: MappingKey(stringValue: "a"))
        KeepsDecoder.kept = decoder
    }
    /// Only the misuse tests map these types, one at a time.
    nonisolated(unsafe) static var kept: (any Decoder)?
}

struct KeepsSuperDecoder: Decodable {
    init(from decoder: any Decoder) throws {
        let superDecoder = try decoder.container(keyedBy: MappingKey.self).superDecoder()
        _ = try superDecoder.container(keyedBy: MappingKey.self).decode(Int.self, forKey: MappingKey(stringValue: "a"))
        KeepsDecoder.kept = superDecoder
    }
}

/// Reads its own value, then tries to look at the keys through the decoder another mapping kept.
struct ReadsKeptDecoder: Decodable {
    let sawKeys: [String]?
    init(from decoder: any Decoder) throws {
        _ = try decoder.container(keyedBy: MappingKey.self).decode(Int.self, forKey: MappingKey(stringValue: "secret"))
        sawKeys = try? KeepsDecoder.kept?.container(keyedBy: MappingKey.self).allKeys.map(\.stringValue)
    }
}

extension EntityMapper {
    /// Maps, then hands the decoder the target type kept to `keeper`.
    func map<T: Decodable>(_ value: some Encodable, to type: T.Type, keeping keeper: DecoderKeeper) throws -> T {
        let result = try map(value, to: T.self)
        keeper.decoder = KeepsDecoder.kept
        return result
    }
}

/// Keeps a container from a mapping it runs inside its own `encode(to:)`.
struct MapsInside: Encodable {
    let keeper: ContainerKeeper
    func encode(to encoder: any Encoder) throws {
        _ = try EntityMapper().map(Leaky(keeper: keeper), to: [String: Int].self)
        var container = encoder.container(keyedBy: MappingKey.self)
        try container.encode(1, forKey: MappingKey(stringValue: "outer"))
    }
}

/// `depth` levels of arrays whose innermost level keeps its container.
struct DeepKeeper: Encodable {
    let depth: Int
    let keeper: ContainerKeeper
    func encode(to encoder: any Encoder) throws {
        if depth == 0 {
            var container = encoder.container(keyedBy: MappingKey.self)
            try container.encode(0, forKey: MappingKey(stringValue: "leaf"))
            keeper.container = container
        } else {
            var container = encoder.unkeyedContainer()
            try container.encode(DeepKeeper(depth: depth - 1, keeper: keeper))
        }
    }
}

final class CallCounter: @unchecked Sendable {
    var count = 0
}

/// Like `Nest`, but counts how often its `encode(to:)` runs.
struct CountingNest: Encodable {
    let depth: Int
    let counter: CallCounter
    func encode(to encoder: any Encoder) throws {
        counter.count += 1
        if depth == 0 {
            var container = encoder.singleValueContainer()
            try container.encode(0)
        } else {
            var container = encoder.unkeyedContainer()
            try container.encode(CountingNest(depth: depth - 1, counter: counter))
        }
    }
}

/// Stores a single value, then asks for a keyed container for the same value.
struct TwoKinds: Encodable {
    func encode(to encoder: any Encoder) throws {
        var single = encoder.singleValueContainer()
        try single.encode(1)
        var keyed = encoder.container(keyedBy: MappingKey.self)
        try keyed.encode(2, forKey: MappingKey(stringValue: "b"))
    }
}

struct WritesATwice: Encodable {
    enum CodingKeys: String, CodingKey { case a }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(1, forKey: .a)
        try container.encode(2, forKey: .a)
    }
}

struct OnlyA: Decodable { let a: Int }

/// Reads nothing: in lenient mode, any value maps to it.
struct Skip: Decodable {
    init(from decoder: any Decoder) throws {}
}

/// Swallows a nested value's error with `try?`, then throws at the top level.
struct SwallowsThenThrows: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MappingKey.self)
        try? container.encode(Refusing(), forKey: MappingKey(stringValue: "inner"))
        throw ValidationError.negative(-7)
    }
}
