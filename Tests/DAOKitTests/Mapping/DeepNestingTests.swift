import Foundation
import Testing
@testable import DAOKit

/// Values nested far deeper than a JSON decoder accepts (512 levels) still map, on any thread.
@Suite("Deep nesting")
struct DeepNestingTests {
    let mapper = EntityMapper()

    @Test func sixHundredLevelsMapOnTheCallersThread() throws {
        #expect(try mapper.map(Nest(depth: 600), to: NestCounter.self).depth == 600)
    }

    @Test func sixHundredLevelsMapOnASwiftConcurrencyThread() async throws {
        let depth = try await Task.detached { try EntityMapper().map(Nest(depth: 600), to: NestCounter.self).depth }.value
        #expect(depth == 600)
    }

    @Test func tenThousandLevelsMap() async throws {
        let depth = try await Task.detached { try EntityMapper(strict: true).map(Nest(depth: 10_000), to: NestCounter.self).depth }.value
        #expect(depth == 10_000)
    }

    @Test func aDeepKeyedTreeKeepsItsPathsInErrors() throws {
        let error = try #require(throws: MappingError.self) { try mapper.map(KeyedNest(depth: 700), to: StrictLeaf.self) }
        #expect(error.kind == .keyNotFound)
        #expect(error.codingPath.count == 700 + 1)
        #expect(error.path.hasPrefix("child.child.child"))
        #expect(error.path.hasSuffix("child.required"))
    }

    @Test func nestingBeyondTheAbsoluteLimitIsACorruptValueNotACrash() async throws {
        let error = try await Task.detached {
            try #require(throws: MappingError.self) { try EntityMapper().map(Nest(depth: 100_001), to: NestCounter.self) }
        }.value
        guard case let .dataCorrupted(message) = error.kind else {
            Issue.record("expected dataCorrupted, got \(error.kind)")
            return
        }
        #expect(message.contains("100000"))
    }
}

/// `depth` levels of arrays, generated while encoding so no deep structure lives in memory
/// (freeing one recursively could itself overflow the stack).
struct Nest: Encodable {
    let depth: Int
    func encode(to encoder: any Encoder) throws {
        if depth == 0 {
            var container = encoder.singleValueContainer()
            try container.encode(0)
        } else {
            var container = encoder.unkeyedContainer()
            try container.encode(Nest(depth: depth - 1))
        }
    }
}

/// Counts the levels of a `Nest` without keeping them.
struct NestCounter: Decodable {
    let depth: Int
    init(from decoder: any Decoder) throws {
        if var container = try? decoder.unkeyedContainer() {
            depth = try container.decode(NestCounter.self).depth + 1
        } else {
            _ = try decoder.singleValueContainer().decode(Int.self)
            depth = 0
        }
    }
}

/// `depth` levels of `{"child": …}` ending in an empty object.
struct KeyedNest: Encodable {
    let depth: Int
    enum Keys: String, CodingKey { case child }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        if depth > 0 { try container.encode(KeyedNest(depth: depth - 1), forKey: .child) }
    }
}

/// Follows `child` keys down and requires a key the innermost level lacks.
struct StrictLeaf: Decodable {
    enum Keys: String, CodingKey { case child, required }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        if container.contains(.child) {
            _ = try container.decode(StrictLeaf.self, forKey: .child)
        } else {
            _ = try container.decode(Int.self, forKey: .required)
        }
    }
}
