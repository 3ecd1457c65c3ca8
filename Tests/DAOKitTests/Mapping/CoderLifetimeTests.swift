import Foundation
import Testing

@testable import DAOKit

/// The mapper reuses its coders per thread for speed; these tests hold it to never letting that
/// reuse show: kept containers, re-entrant calls and later calls on the same thread stay correct.
@Suite("Coder reuse and lifetime")
struct CoderLifetimeTests {
    let mapper = EntityMapper()

    @Test func aContainerKeptAfterEncodeToReturnedCannotCorruptALaterMapping() throws {
        let keeper = ContainerKeeper()
        _ = try mapper.map(Leaky(keeper: keeper), to: [String: Int].self)
        let message = Message.sample(4)
        // The mapping that made the container is over: writing through it must fail, and must
        // not land in the next mapping's (reused) storage.
        #expect(throws: EncodingError.self) { try keeper.writeLate() }
        #expect(try mapper.map(message, to: MessageEntity.self).plain == message)
        #expect(throws: EncodingError.self) { try keeper.writeLate() }
        #expect(try mapper.map(message, to: Message.self) == message)
    }

    @Test func aKeptContainersNestedContainersAreDetachedToo() throws {
        let keeper = ContainerKeeper()
        _ = try mapper.map(Leaky(keeper: keeper), to: [String: Int].self)
        #expect(throws: EncodingError.self) { try keeper.writeThroughNestedContainers() }
        let message = Message.sample(5)
        #expect(try mapper.map(message, to: Message.self) == message)
    }

    @Test func aDecodingContainerKeptAfterInitFromReturnedThrows() throws {
        let keeper = DecodingContainerKeeper()
        _ = try mapper.map(["a": 1], to: LeakyReader.self, keeper: keeper)
        _ = try mapper.map(["a": 2, "b": 3], to: [String: Int].self)
        #expect(throws: DecodingError.self) { try keeper.readLate() }
    }

    @Test func aContainerWrittenLateWithinTheSameMappingIsKept() throws {
        let result = try mapper.map(LateWriter(), to: [String: Int].self)
        #expect(result == ["early": 1, "late": 2])
    }

    @Test func aTypeWhoseEncodeToMapsAnotherValueGetsItsOwnCoders() throws {
        let outer = Reentrant(inner: Message.sample(2))
        let result = try mapper.map(outer, to: ReentrantMirror.self)
        #expect(result.innerText == Message.sample(2).text)
        #expect(result.copiedID == 2)
    }

    @Test func manyMappingsOnOneThreadStayIndependent() throws {
        for id in 0..<2_000 {
            let message = Message.sample(
                id, attachment: id.isMultiple(of: 3) ? nil : URL(string: "https://e.com/\(id)"))
            #expect(try mapper.map(message, to: MessageEntity.self).plain == message)
        }
    }

    @Test func aHugeArrayDoesNotBreakLaterSmallMappings() throws {
        let many = (0..<20_000).map { Message.sample($0) }
        #expect(try mapper.map(many, to: [MessageEntity].self).count == 20_000)
        #expect(try mapper.map(Message.sample(1), to: Message.self) == Message.sample(1))
    }
}

// MARK: - Fixtures

/// Holds on to a container past the end of `encode(to:)`, which Codable does not forbid.
final class ContainerKeeper: @unchecked Sendable {
    var container: KeyedEncodingContainer<MappingKey>?

    func writeLate() throws {
        try container?.encode(99, forKey: MappingKey(stringValue: "late"))
    }

    func writeThroughNestedContainers() throws {
        guard var container else { return }
        var nested = container.nestedContainer(keyedBy: MappingKey.self, forKey: MappingKey(stringValue: "n"))
        try nested.encode(1, forKey: MappingKey(stringValue: "x"))
        var list = container.nestedUnkeyedContainer(forKey: MappingKey(stringValue: "l"))
        try list.encode(1)
    }
}

struct Leaky: Encodable {
    let keeper: ContainerKeeper
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MappingKey.self)
        try container.encode(1, forKey: MappingKey(stringValue: "early"))
        keeper.container = container
    }
}

final class DecodingContainerKeeper: @unchecked Sendable {
    var container: KeyedDecodingContainer<MappingKey>?
    func readLate() throws {
        _ = try container?.decode(Int.self, forKey: MappingKey(stringValue: "a"))
    }
}

struct LeakyReader: Decodable {
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: MappingKey.self)
        _ = try container.decode(Int.self, forKey: MappingKey(stringValue: "a"))
        LeakyReader.lastContainer = container
    }
    /// Only `aDecodingContainerKeptAfterInitFromReturnedThrows` maps this type.
    nonisolated(unsafe) static var lastContainer: KeyedDecodingContainer<MappingKey>?
}

extension EntityMapper {
    /// Maps, then hands the container `LeakyReader` kept to `keeper`.
    func map(_ value: [String: Int], to type: LeakyReader.Type, keeper: DecodingContainerKeeper) throws -> LeakyReader {
        let result = try map(value, to: LeakyReader.self)
        keeper.container = LeakyReader.lastContainer
        return result
    }
}

/// Writes into its first container after a nested value was encoded, as JSONEncoder allows.
struct LateWriter: Encodable {
    func encode(to encoder: any Encoder) throws {
        var first = encoder.container(keyedBy: MappingKey.self)
        try first.encode(1, forKey: MappingKey(stringValue: "early"))
        var again = encoder.container(keyedBy: MappingKey.self)
        try again.encode(2, forKey: MappingKey(stringValue: "late"))
    }
}

struct Reentrant: Encodable {
    let inner: Message
    enum Keys: String, CodingKey { case innerText, copiedID }
    func encode(to encoder: any Encoder) throws {
        // Maps another value while this mapping's coders are in use on the same thread.
        let copy = try EntityMapper().map(inner, to: MessageEntity.self)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(copy.text, forKey: .innerText)
        try container.encode(copy.id, forKey: .copiedID)
    }
}

struct ReentrantMirror: Decodable {
    let innerText: String
    let copiedID: Int
}
