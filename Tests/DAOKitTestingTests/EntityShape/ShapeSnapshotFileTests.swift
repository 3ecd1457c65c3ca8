import DAOKit
import DAOKitTesting
import Foundation
import Testing

/// A throwaway snapshot folder, removed by `remove()`.
struct SnapshotFolder {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
        "shapes-\(UUID().uuidString)", isDirectory: true)

    func remove() { try? FileManager.default.removeItem(at: url) }

    func write(_ text: String, named name: String) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url.appendingPathComponent(name))
    }

    func read(_ name: String) throws -> String {
        try String(contentsOf: url.appendingPathComponent(name), encoding: .utf8)
    }
}

@Suite("A snapshot file is the recorded shape, read back exactly or refused with its line")
struct ShapeSnapshotFileTests {
    struct Item: Codable {
        var name: String
        var sizes: [Int: Double]?
    }
    enum Odd: String, Codable, CaseIterable {
        case plain
        case spaced = "two words"
        case comma = "a,b"
    }
    final class Node: Codable {
        var label: String
        var next: Node?
    }

    struct Tricky: Storable {
        static var entityName: String { "tricky/entity" }
        var id: String
        var plain: String
        var dotted: Int
        var odd: Odd?
        var items: [[Item]]
        var byKey: [String: Item]
        var node: Node

        enum CodingKeys: String, CodingKey {
            case id
            case plain = "with space"
            case dotted = "a.b"
            case odd = "\"quoted\""
            case items, byKey, node
        }
    }

    @Test func aRecordedSnapshotReadsBackAsTheSameShape() throws {
        let folder = SnapshotFolder()
        defer { folder.remove() }
        let check = EntityShapeCheck(Tricky.self, version: 1, snapshots: folder.url)
        let url = try check.record()
        #expect(url.lastPathComponent == "tricky%2Fentity.v1.shape")
        #expect(
            try folder.read(url.lastPathComponent) == """
                # The stored shape of tricky/entity at version 1, recorded by DAOKitTesting's EntityShapeCheck.
                # Commit this file and do not edit it: every later version is checked against it.
                @entity "tricky/entity"
                @version 1
                id: string
                "with space": string
                "a.b": integer
                "\\"quoted\\"": enum(plain,"two words","a,b")?
                items: [[{}]]
                items[][].name: string
                items[][].sizes: [integer: floating]?
                byKey: [string: {}]
                byKey[].name: string
                byKey[].sizes: [integer: floating]?
                node: {}
                node.label: string
                node.next: recursive(Node)?

                """)
        // Unchanged at the same version: the snapshot read back equals the recorded shape.
        try check.verify()
    }

    @Test func anUnknownKindIsRefusedWithItsLine() throws {
        let error = try verifyingSnapshot("@version 1\nid: string\ntitle: text\n")
        #expect(error.line == 3)
        #expect(error.reason.contains("unknown kind text"))
    }

    @Test func aFieldListedBeforeItsParentIsRefused() throws {
        let error = try verifyingSnapshot("@version 1\nid: string\nowner.name: string\nowner: {}\n")
        #expect(error.line == 3)
        #expect(error.reason.contains("parent owner is not listed before it"))
    }

    @Test func aChildOfAValueThatHoldsNoKeyedValueIsRefused() throws {
        let error = try verifyingSnapshot("@version 1\nid: string\ntags: [string]\ntags[].name: string\n")
        #expect(error.line == 4)
        #expect(error.reason.contains("holds no keyed value"))
    }

    @Test func aFieldListedTwiceIsRefused() throws {
        let error = try verifyingSnapshot("@version 1\nid: string\nid: integer\n")
        #expect(error.line == 3)
        #expect(error.reason.contains("listed twice"))
    }

    @Test func aSnapshotWithoutItsVersionOrWithAnotherIsRefused() throws {
        let missing = try verifyingSnapshot("id: string\n")
        #expect(missing.reason.contains("no @version line"))
        let other = try verifyingSnapshot("@version 2\nid: string\n")
        #expect(other.reason.contains("records version 2 but its name says 1"))
    }

    @Test func aVersionBelowOneIsRefused() throws {
        let folder = SnapshotFolder()
        defer { folder.remove() }
        let error = try #require(throws: ShapeSnapshotError.self) {
            try EntityShapeCheck(Plain.self, version: 0, snapshots: folder.url).verify()
        }
        #expect(error.reason.contains("versions count from 1"))
    }

    struct Plain: Storable {
        static var entityName: String { "plain" }
        var id: String
    }

    /// The error checking `Plain` at version 2 against `text` as its version-1 snapshot throws.
    private func verifyingSnapshot(_ text: String) throws -> ShapeSnapshotError {
        let folder = SnapshotFolder()
        defer { folder.remove() }
        try folder.write(text, named: "plain.v1.shape")
        let error = try #require(throws: ShapeSnapshotError.self) {
            try EntityShapeCheck(Plain.self, version: 2, snapshots: folder.url).verify()
        }
        #expect(error.file.hasSuffix("plain.v1.shape"))
        return error
    }
}
