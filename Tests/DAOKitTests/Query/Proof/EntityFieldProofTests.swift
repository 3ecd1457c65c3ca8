import Foundation
import Testing

@testable import DAOKit

/// Which entity fields may be read straight from stored properties instead of through
/// `encode(to:)`: the entity-level proof's rule, case by case, and readers that read exactly what
/// the extractor reads.
@Suite("Entity field proof")
struct EntityFieldProofTests {
    typealias E = ProofEntities

    func proven<Entity: Codable>(_ entity: Entity, _ fields: FieldPath...) -> Bool {
        EntityFieldProof.prove(Entity.self, fields: fields, sample: entity) != nil
    }

    @Test func everyStoredFieldOfAPlainStructIsProvenUnderItsName() {
        let sample = E.plain(1)
        for field: FieldPath in [
            "id", "key", "group", "stamp", "token", "price", "ratio", "small", "link", "blob", "flag",
            "note", "place.city", "place.zip",
        ] {
            #expect(proven(sample, field), "\(field)")
        }
        #expect(proven(sample, "group", "key", "place.city", "note", "stamp"))
    }

    @Test func anOptionalFieldIsProvenFromASampleThatHoldsNil() {
        var sample = E.plain(3)
        sample.note = nil
        #expect(proven(sample, "note"))
    }

    @Test func theProvenReaderReadsWhatTheExtractorReadsCaseForCase() throws {
        let fields: [FieldPath] = [
            "id", "key", "group", "stamp", "token", "price", "ratio", "small", "link", "blob", "flag",
            "note", "place.city", "place.zip",
        ]
        let reader = try #require(EntityFieldProof.prove(E.Plain.self, fields: fields, sample: E.plain(1)))
        let extractor = FieldExtractor(fields: fields)
        var edges = E.plain(2)
        (edges.key, edges.ratio, edges.small, edges.group) = (Int.min, .nan, .max, "e\u{301}")
        for entity in (0..<40).map(E.plain) + [edges] {
            let read = reader.values(of: entity)
            let stored = try extractor.values(of: entity)
            #expect(read.count == stored.count)
            for (readValue, storedValue) in zip(read, stored) {
                #expect(String(reflecting: readValue) == String(reflecting: storedValue), "\(entity.id)")
            }
        }
    }

    @Test func aClassEntityIsNeverProven() {
        #expect(!proven(E.Boxed(id: 1, key: 2, group: "g"), "key"))
        #expect(!proven(E.Boxed(id: 1, key: 2, group: "g"), "group", "key"))
    }

    @Test func aComputedPropertyStoredByACustomEncoderIsNotProven() {
        let sample = E.Computed(id: 1, key: 4, group: "g")
        #expect(!proven(sample, "key"))
        #expect(!proven(sample, "group", "key"))
    }

    @Test func swappedCodingKeysAreNotProvenUnderEitherName() {
        let sample = E.Swapped(id: 1, key: 2, other: 3, group: "g")
        #expect(!proven(sample, "key"))
        #expect(!proven(sample, "other"))
    }

    @Test func aPropertyStoredUnderAnotherNameIsNotProven() {
        let sample = E.Renamed(id: 1, key: 2, group: "g", label: "l")
        #expect(!proven(sample, "group"))
        #expect(!proven(sample, "label"))
        #expect(proven(sample, "key"), "the field the keys leave alone")
    }

    @Test func aCoderThatTransformsTheValueIsNotProven() {
        let sample = E.Transforming(id: 1, key: 2, group: "g")
        #expect(!proven(sample, "key"))
        #expect(proven(sample, "group"), "the field the coder leaves alone")
    }

    @Test func aDateStoredAsANumberIsNotProven() {
        let sample = E.DateAsNumber(id: 1, stamp: Date(timeIntervalSince1970: 5), group: "g")
        #expect(!proven(sample, "stamp"))
        #expect(!proven(sample, "group", "stamp"))
    }

    @Test func anEnumAWholeStructAnOptionalChainAndAMissingFieldAreNotProven() {
        #expect(!proven(E.RawEnum(id: 1, key: 2, level: .low), "level"))
        #expect(!proven(E.plain(1), "place"))
        #expect(!proven(E.OptionalChain(id: 1, place: E.Place(city: "Oslo", zip: 1)), "place.city"))
        #expect(!proven(E.plain(1), "missing"))
        #expect(!proven(E.plain(1), "place.missing"))
        #expect(!proven(E.plain(1), "key.deeper"))
    }

    @Test func oneUnprovenFieldRefutesTheWholeList() {
        #expect(!proven(E.Transforming(id: 1, key: 2, group: "g"), "group", "key"))
        #expect(!proven(E.plain(1), "group", "missing"))
    }

    @Test func anEmptyFieldListIsNotProven() {
        #expect(EntityFieldProof.prove(E.Plain.self, fields: [], sample: E.plain(1)) == nil)
    }

    @Test func theCachedAnswerIsTheProofsAnswer() {
        #expect(EntityFieldProof.reader(for: E.Plain.self, fields: ["key"], sample: E.plain(1)) != nil)
        #expect(EntityFieldProof.reader(for: E.Plain.self, fields: ["key"], sample: E.plain(2)) != nil)
        let transforming = E.Transforming(id: 1, key: 2, group: "g")
        #expect(EntityFieldProof.reader(for: E.Transforming.self, fields: ["key"], sample: transforming) == nil)
        #expect(EntityFieldProof.reader(for: E.Transforming.self, fields: ["key"], sample: transforming) == nil)
    }

    @Test func aReaderReadsEveryTypeThroughTheExtractorWhereTheProofFails() throws {
        let reader = EntityFieldReader(fields: ["key"])
        let plain = E.plain(5)
        #expect(try reader.values(of: plain) == [.int(Int64(plain.key))])
        // Another type through the same reader, unproven: the extractor's value, times ten as stored.
        #expect(try reader.values(of: E.Transforming(id: 1, key: 3, group: "g")) == [.int(30)])
        #expect(try reader.values(of: E.Boxed(id: 1, key: 3, group: "g")) == [.int(3)])
    }
}
