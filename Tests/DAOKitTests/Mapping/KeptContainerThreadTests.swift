import Foundation
import Testing

@testable import DAOKit

/// A container, encoder or decoder that user code kept after its mapping and touches from another
/// thread — while the thread that made it maps on — is refused, and reading it never reads the other
/// thread's memory: its path is empty, its count zero. (Run under ThreadSanitizer and
/// AddressSanitizer by `.ci/run`, which is what proves "never reads".)
@Suite("Kept containers on other threads")
struct KeptContainerThreadTests {
    @Test func keptEncodingContainersAreRefusedOnAnotherThreadWhileTheirThreadMapsOn() async throws {
        let kept = KeptCoders()
        _ = try EntityMapper().map(KeepsEncodingCoders(kept: kept), to: [String: [Int]].self)
        let refusals = try await touchWhileMapping(kept) { kept in
            var refused = 0
            var keyed = kept.keyed!
            var unkeyed = kept.unkeyed!
            if (try? keyed.encode(1, forKey: MappingTestKey(stringValue: "late"))) == nil { refused += 1 }
            if (try? unkeyed.encode(Inner(v: 1))) == nil { refused += 1 }
            var single = kept.encoder!.singleValueContainer()
            if (try? single.encode(2)) == nil { refused += 1 }
            if keyed.codingPath.isEmpty && unkeyed.codingPath.isEmpty && kept.encoder!.codingPath.isEmpty {
                refused += 1
            }
            if unkeyed.count == 0 { refused += 1 }
            return refused
        }
        #expect(refusals == Array(repeating: 5, count: refusals.count))
    }

    @Test func keptDecodingContainersAreRefusedOnAnotherThreadWhileTheirThreadMapsOn() async throws {
        let kept = KeptCoders()
        _ = try EntityMapper().map(["list": [1, 2]], to: KeepsDecodingCoders.self, keeping: kept)
        let refusals = try await touchWhileMapping(kept) { kept in
            var refused = 0
            let keyed = kept.keyedDecoding!
            var unkeyed = kept.unkeyedDecoding!
            if (try? keyed.decode(Int.self, forKey: MappingTestKey(stringValue: "list"))) == nil { refused += 1 }
            if (try? unkeyed.decode(Int.self)) == nil { refused += 1 }
            if (try? kept.decoder!.singleValueContainer()) == nil { refused += 1 }
            if keyed.codingPath.isEmpty && unkeyed.codingPath.isEmpty && keyed.allKeys.isEmpty { refused += 1 }
            if unkeyed.count == 0 && unkeyed.isAtEnd { refused += 1 }
            return refused
        }
        #expect(refusals == Array(repeating: 5, count: refusals.count))
    }
}

/// Touches `kept` from a second thread 2,000 times while the test's thread maps wide values (whose
/// nodes are the recycled nodes the kept containers point at); returns what each touch counted.
private func touchWhileMapping(_ kept: KeptCoders, _ touch: @escaping @Sendable (KeptCoders) -> Int) async throws
    -> [Int]
{
    let wide = Dictionary(uniqueKeysWithValues: (0..<400).map { ("key\($0)", [$0]) })
    let results = ResultsBox()
    let toucher = Thread {
        for _ in 0..<2_000 { results.append(touch(kept)) }
        results.finish()
    }
    toucher.start()
    let mapper = EntityMapper()
    while !results.isFinished {
        _ = try mapper.map(wide, to: [String: [Int]].self)
    }
    return results.values
}

/// The coders and containers one mapping handed to user code, kept for later (mis)use.
final class KeptCoders: @unchecked Sendable {
    var keyed: KeyedEncodingContainer<MappingTestKey>?
    var unkeyed: (any UnkeyedEncodingContainer)?
    var encoder: (any Encoder)?
    var keyedDecoding: KeyedDecodingContainer<MappingTestKey>?
    var unkeyedDecoding: (any UnkeyedDecodingContainer)?
    var decoder: (any Decoder)?
}

struct KeepsEncodingCoders: Encodable {
    let kept: KeptCoders
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MappingTestKey.self)
        let list = container.nestedUnkeyedContainer(forKey: MappingTestKey(stringValue: "list"))
        kept.keyed = container
        kept.unkeyed = list
        kept.encoder = encoder
    }
}

struct KeepsDecodingCoders: Decodable {
    init(from decoder: any Decoder) throws {
        guard let kept = KeepsDecodingCoders.keeper.value else { return }
        let container = try decoder.container(keyedBy: MappingTestKey.self)
        kept.keyedDecoding = container
        kept.unkeyedDecoding = try container.nestedUnkeyedContainer(forKey: MappingTestKey(stringValue: "list"))
        kept.decoder = decoder
    }

    /// Where `init(from:)` keeps what it is handed; set around one mapping by ``EntityMapper/map(_:to:keeping:)``.
    static let keeper = KeeperSlot()
}

final class KeeperSlot: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: KeptCoders?
    var value: KeptCoders? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

extension EntityMapper {
    /// Maps `value` to `KeepsDecodingCoders`, which keeps its coders in `kept`.
    func map<Source: Encodable>(_ value: Source, to type: KeepsDecodingCoders.Type, keeping kept: KeptCoders) throws
        -> KeepsDecodingCoders
    {
        KeepsDecodingCoders.keeper.value = kept
        defer { KeepsDecodingCoders.keeper.value = nil }
        return try map(value, to: type)
    }
}

final class ResultsBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Int] = []
    private var finished = false

    func append(_ value: Int) { lock.withLock { stored.append(value) } }
    func finish() { lock.withLock { finished = true } }
    var isFinished: Bool { lock.withLock { finished } }
    var values: [Int] { lock.withLock { stored } }
}
