import Foundation
import Testing

@testable import DAOKit

/// Keyed decoding containers refer to their cursor without retaining it; the decoder's container
/// cache keeps every cursor alive for as long as its container can be used
/// (`Mapping/Internal/Unsafe/ContainerCache.swift`, "Cursor ownership"). These cases would read freed memory
/// if it did not — which the AddressSanitizer run of `.ci/run` turns into a failure.
@Suite("Decoding cursor ownership")
struct DecodingCursorOwnershipTests {
    @Test func aContainerKeptPastTheEndOfItsThreadStillRefusesToRead() throws {
        let keeper = KeptDecodingContainers()
        let thread = Thread {
            keeper.record { _ = try EntityMapper().map(["a": ["b": 1]], to: KeepsKeyedDecoding.self, keeping: keeper) }
        }
        thread.start()
        keeper.waitUntilDone()
        // Once the thread has finished, its session and container cache are gone.
        while !thread.isFinished { Thread.sleep(forTimeInterval: 0.001) }
        let outer = try #require(keeper.outer)
        let nested = try #require(keeper.nested)
        #expect(throws: DecodingError.self) { try outer.decode(Int.self, forKey: MappingTestKey(stringValue: "a")) }
        #expect(throws: DecodingError.self) { try nested.decode(Int.self, forKey: MappingTestKey(stringValue: "b")) }
        #expect(outer.codingPath.isEmpty && nested.allKeys.isEmpty)
        #expect(keeper.failure == nil)
    }

    @Test func aNestedContainerKeptAfterItsMappingThrowsWhileLaterMappingsWork() throws {
        let keeper = KeptDecodingContainers()
        _ = try EntityMapper().map(["a": ["b": 1]], to: KeepsKeyedDecoding.self, keeping: keeper)
        for index in 0..<50 {
            #expect(
                try EntityMapper().map(["a": ["b": index]], to: [String: [String: Int]].self) == ["a": ["b": index]])
        }
        let nested = try #require(keeper.nested)
        #expect(throws: DecodingError.self) { try nested.decode(Int.self, forKey: MappingTestKey(stringValue: "b")) }
    }

    @Test func recursionOfOneTypeDeeperThanTheCacheHoldsDecodesEveryLevel() throws {
        // Each level holds its container while the next decodes, so every level needs a box of its
        // own: 32 fit the cache, the rest are overflow boxes let go when the call ends.
        let chain = Chain.make(depth: 100)
        let mapper = EntityMapper()
        for _ in 0..<3 {
            #expect(try mapper.map(chain, to: Chain.self) == chain)
        }
        #expect(try mapper.map(Chain.make(depth: 3), to: Chain.self) == Chain.make(depth: 3))
    }

    @Test func theFallbackContainerOwnsItsCursorAndReadsLikeTheCachedOne() throws {
        let arena = CodingArena()
        let node = arena.makeNode(unkeyed: false, parent: nil, index: 0)
        node.append(key: "id", value: .int(7))
        node.append(key: "name", value: .string("seven"))
        let decoder = MappingDecoder(arena: arena, node: node, index: 0)
        let container = KeyedDecodingContainer(
            CursorOwningKeyedDecodingContainer<MappingTestKey>(decoder: decoder, cursor: ContainerCursor(node: node)))
        #expect(try container.decode(Int.self, forKey: MappingTestKey(stringValue: "id")) == 7)
        #expect(try container.decode(String.self, forKey: MappingTestKey(stringValue: "name")) == "seven")
        #expect(try container.decodeIfPresent(String.self, forKey: MappingTestKey(stringValue: "none")) == nil)
        #expect(throws: DecodingError.self) {
            try container.decode(Int.self, forKey: MappingTestKey(stringValue: "none"))
        }
        #expect(throws: DecodingError.self) {
            try container.decode(Int.self, forKey: MappingTestKey(stringValue: "name"))
        }
        arena.reset()
        #expect(throws: DecodingError.self) {
            try container.decode(Int.self, forKey: MappingTestKey(stringValue: "id"))
        }
    }
}

/// Keeps its keyed decoding container and a nested one after `init(from:)` returns.
private struct KeepsKeyedDecoding: Decodable {
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: MappingTestKey.self)
        let nested = try container.nestedContainer(
            keyedBy: MappingTestKey.self, forKey: MappingTestKey(stringValue: "a"))
        _ = try nested.decode(Int.self, forKey: MappingTestKey(stringValue: "b"))
        Self.keeper.value?.keep(outer: container, nested: nested)
    }

    static let keeper = ThreadSpecificDecodingKeeper()
}

extension EntityMapper {
    fileprivate func map<Source: Encodable>(
        _ value: Source, to type: KeepsKeyedDecoding.Type, keeping keeper: KeptDecodingContainers
    ) throws -> KeepsKeyedDecoding {
        KeepsKeyedDecoding.keeper.value = keeper
        defer { KeepsKeyedDecoding.keeper.value = nil }
        return try map(value, to: type)
    }
}

/// The containers a ``KeepsKeyedDecoding`` kept, and whether its mapping finished.
private final class KeptDecodingContainers: @unchecked Sendable {
    private let lock = NSCondition()
    private var done = false
    private(set) var outer: KeyedDecodingContainer<MappingTestKey>?
    private(set) var nested: KeyedDecodingContainer<MappingTestKey>?
    private(set) var failure: (any Error)?

    func keep(outer: KeyedDecodingContainer<MappingTestKey>, nested: KeyedDecodingContainer<MappingTestKey>) {
        lock.withLock {
            self.outer = outer
            self.nested = nested
        }
    }

    /// Runs `body`, records its error, and marks the keeper done.
    func record(_ body: () throws -> Void) {
        do { try body() } catch { lock.withLock { failure = error } }
        lock.withLock {
            done = true
            lock.broadcast()
        }
    }

    func waitUntilDone() {
        lock.withLock { while !done { lock.wait() } }
    }
}

/// Where ``KeepsKeyedDecoding`` finds its keeper: per thread, so parallel tests do not share one.
private final class ThreadSpecificDecodingKeeper: @unchecked Sendable {
    private let key = "DecodingCursorOwnershipTests.keeper"
    var value: KeptDecodingContainers? {
        get { Thread.current.threadDictionary[key] as? KeptDecodingContainers }
        set { Thread.current.threadDictionary[key] = newValue }
    }
}

/// A linked chain whose `init(from:)` holds its container while the next link decodes.
private struct Chain: Codable, Equatable {
    let value: Int
    let next: Box?

    final class Box: Codable, Equatable {
        let chain: Chain
        init(_ chain: Chain) { self.chain = chain }
        func encode(to encoder: any Encoder) throws { try chain.encode(to: encoder) }
        init(from decoder: any Decoder) throws { chain = try Chain(from: decoder) }
        static func == (lhs: Box, rhs: Box) -> Bool { lhs.chain == rhs.chain }
    }

    static func make(depth: Int) -> Chain {
        var chain = Chain(value: depth, next: nil)
        for level in stride(from: depth - 1, through: 1, by: -1) {
            chain = Chain(value: level, next: Box(chain))
        }
        return chain
    }
}
