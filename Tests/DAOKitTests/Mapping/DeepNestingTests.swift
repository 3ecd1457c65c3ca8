import Foundation
import Testing

@testable import DAOKit

/// Values nest as deep as the caller's thread's stack holds, all of it on that thread: deeper than a
/// JSON decoder accepts (512 levels) on any ordinary thread, 99,999 levels on a thread with a large
/// stack, and a `MappingError` — never a crash — for what does not fit.
@Suite("Deep nesting")
struct DeepNestingTests {
    let mapper = EntityMapper()

    @Test func sixHundredLevelsMapOnTheCallersThread() throws {
        #expect(try mapper.map(Nest(depth: 600), to: NestCounter.self).depth == 600)
    }

    @Test func sixHundredLevelsMapOnASwiftConcurrencyThread() async throws {
        let depth = try await Task.detached { try EntityMapper().map(Nest(depth: 600), to: NestCounter.self).depth }
            .value
        #expect(depth == 600)
    }

    @Test func ninetyNineThousandNineHundredNinetyNineLevelsMapOnAThreadWithALargeStack() async throws {
        let depth = try await onThread(stackSize: StackSizes.huge) {
            try EntityMapper(strict: true).map(Nest(depth: 99_999), to: NestCounter.self).depth
        }
        #expect(depth == 99_999)
    }

    @Test func aDeepKeyedTreeKeepsItsPathsInErrors() throws {
        let error = try #require(throws: MappingError.self) {
            try mapper.map(KeyedNest(depth: 700), to: StrictLeaf.self)
        }
        #expect(error.kind == .keyNotFound)
        #expect(error.codingPath.count == 700 + 1)
        #expect(error.path.hasPrefix("child.child.child"))
        #expect(error.path.hasSuffix("child.required"))
    }

    @Test func nestingBeyondTheAbsoluteLimitIsACorruptValueNotACrash() async throws {
        let message = try await onThread(stackSize: StackSizes.huge) { () -> String? in
            let error = try #require(throws: MappingError.self) {
                try EntityMapper().map(Nest(depth: 100_001), to: NestCounter.self)
            }
            guard let message = error.kind.message else { return nil }
            return message
        }
        #expect(message?.contains("100000") == true)
    }

    @Test func encodingDeeperThanTheThreadsStackHoldsIsAnErrorNotACrash() async throws {
        let message = try await onThread(stackSize: StackSizes.small) { () -> String? in
            let error = try #require(throws: MappingError.self) {
                try EntityMapper().map(Nest(depth: 50_000), to: NestCounter.self)
            }
            guard let message = error.kind.message else { return nil }
            return message
        }
        #expect(message?.contains("larger stack") == true)
    }

    @Test func decodingDeeperThanTheThreadsStackHoldsIsAnErrorNotACrash() async throws {
        let message = try await onThread(stackSize: StackSizes.small) { () -> String? in
            let error = try #require(throws: MappingError.self) {
                try DeepDecoding.$levelsLeft.withValue(50_000) { try EntityMapper().map(0, to: DeepDecoding.self) }
            }
            guard let message = error.kind.message else { return nil }
            return message
        }
        #expect(message?.contains("larger stack") == true)
    }

    @Test func aThreadThatRanOutOfStackMapsAgainAfterwards() async throws {
        let depths = try await onThread(stackSize: StackSizes.small) { () -> [Int] in
            let mapper = EntityMapper()
            _ = try? mapper.map(Nest(depth: 50_000), to: NestCounter.self)
            // Well within what 512 KiB holds even in a sanitized debug build (about 90 levels there).
            return try [10, 50].map { try mapper.map(Nest(depth: $0), to: NestCounter.self).depth }
        }
        #expect(depths == [10, 50])
    }

    @Test func userCodeAtEveryDepthSeesTheCallersTaskLocals() async throws {
        let seen = try DeepDecoding.$marker.withValue("caller") {
            try DeepDecoding.$levelsLeft.withValue(1_000) {
                try EntityMapper().map(0, to: DeepDecoding.self).markerAtBottom
            }
        }
        #expect(seen == "caller")
    }

    @Test func userCodeAtEveryDepthSeesTheCallersTaskLocalsWhileEncoding() async throws {
        let seen = try DeepDecoding.$marker.withValue("encoder") {
            try EntityMapper().map(MarkerNest(depth: 1_000), to: [String].self)
        }
        #expect(seen == ["encoder"])
    }

    @MainActor
    @Test func mainActorTypesMapAtEveryDepthFromTheMainActor() throws {
        let chain = MainActorChain(depth: 1_000)
        let back = try EntityMapper().map(chain, to: MainActorChain.self)
        #expect(back.depth == 1_000)
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

/// Decodes itself from its own single-value container `levelsLeft` times over — a decode that nests
/// however shallow the data — and reports the `marker` task-local its innermost level saw.
struct DeepDecoding: Decodable {
    @TaskLocal static var levelsLeft = 0
    @TaskLocal static var marker: String?
    let markerAtBottom: String?

    init(from decoder: any Decoder) throws {
        let left = Self.levelsLeft
        guard left > 0 else {
            markerAtBottom = Self.marker
            return
        }
        markerAtBottom = try Self.$levelsLeft.withValue(left - 1) {
            try decoder.singleValueContainer().decode(DeepDecoding.self).markerAtBottom
        }
    }
}

/// `depth` levels of values that each encode the next one in their single-value container, ending in
/// a one-element array holding the `marker` task-local as the innermost `encode(to:)` saw it: it
/// nests `depth` levels while encoding and maps to a `[String]`.
struct MarkerNest: Encodable {
    let depth: Int
    func encode(to encoder: any Encoder) throws {
        if depth == 0 {
            var container = encoder.unkeyedContainer()
            try container.encode(DeepDecoding.marker ?? "none")
        } else {
            var container = encoder.singleValueContainer()
            try container.encode(MarkerNest(depth: depth - 1))
        }
    }
}

/// A main-actor class whose Codable conformance is isolated to the main actor: the runtime checks,
/// at every level, that its `encode(to:)` and `init(from:)` run there.
@MainActor
final class MainActorChain: @preconcurrency Codable {
    let next: MainActorChain?

    init(depth: Int) {
        var chain: MainActorChain?
        for _ in 0..<depth { chain = MainActorChain(next: chain) }
        next = chain
    }

    private init(next: MainActorChain?) {
        self.next = next
    }

    var depth: Int {
        var count = 0
        var link = next
        while let current = link {
            count += 1
            link = current.next
        }
        return count
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
