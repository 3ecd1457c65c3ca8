import Foundation
import Testing

@testable import DAOKit

/// The mapper's unsafe fast paths are switched on where they should be, and their guards hold
/// (see `Sources/DAOKit/Mapping/Internal/Unsafe/README.md`).
@Suite("Unsafe fast paths")
struct UnsafeFastPathTests {
    @Test func theContainerBoxCacheIsActiveOnThisToolchain() {
        // If the standard library's container layout changes, the cache stands aside: correct, but
        // slower. This test makes that visible instead of silent.
        #expect(ContainerCache.isSupported)
    }

    @Test func keysAreReadFromTheStringsOwnWordsOnThisToolchain() {
        // If the standard library's string layout changes, keys take the general path: correct,
        // but slower. This test makes that visible instead of silent.
        #expect(StringBits.isSupported)
        #expect(StringBits.smallASCII("ab")?.low == 0x6261 && StringBits.smallASCII("ab")?.high == 0)
        #expect(StringBits.smallASCII("abcdefghi")?.high == 0x69)
        #expect(StringBits.smallASCII("\u{E9}") == nil)
        #expect(StringBits.smallASCII(String(repeating: "x", count: 40)) == nil)
        #expect(StringBits.isImmortal("id") && !StringBits.isImmortal(String(repeating: "x", count: 40)))
    }

    @Test func aContainerHeldWhileANestedValueOfTheSameKeyTypeDecodesKeepsItsOwnNode() throws {
        let tree = Branch(label: "root", child: Branch(label: "child", child: Branch(label: "leaf", child: nil)))
        let copy = try EntityMapper().map(tree, to: Branch.self)
        #expect(copy == tree)
    }

    @Test func aContainerHeldWhileANestedValueOfTheSameKeyTypeEncodesKeepsWritingItsOwnNode() throws {
        let tree = Branch(label: "root", child: Branch(label: "child", child: nil))
        let stored = try EntityMapper().map(tree, to: BranchRecord.self)
        #expect(stored.label == "root" && stored.child?.label == "child" && stored.child?.child == nil)
    }
}

/// Reads its label after its child, so its keyed container is held while the child — same key
/// type, same cached box if the cache were careless — decodes.
struct Branch: Codable, Equatable {
    let label: String
    let child: Box?

    final class Box: Codable, Equatable {
        let value: Branch
        init(_ value: Branch) { self.value = value }
        func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
        init(from decoder: any Decoder) throws { value = try Branch(from: decoder) }
        static func == (lhs: Box, rhs: Box) -> Bool { lhs.value == rhs.value }
    }

    enum CodingKeys: String, CodingKey { case label, child }

    init(label: String, child: Branch?) {
        self.label = label
        self.child = child.map(Box.init)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        child = try container.decodeIfPresent(Box.self, forKey: .child)
        label = try container.decode(String.self, forKey: .label)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(child, forKey: .child)
        try container.encode(label, forKey: .label)
    }
}

/// How a `Branch` is stored, read back with synthesized code.
final class BranchRecord: Codable {
    let label: String
    let child: BranchRecord?
}
