import Foundation
import Testing

@testable import DAOKit

/// Which domain key paths BaseDao may hand to a context as fields: the proof's rule, case by case.
@Suite("Field proof")
struct FieldProofTests {
    struct Place: Codable, Equatable {
        var city: String
        var zip: Int
    }
    enum Mood: String, Codable { case calm, loud }

    struct Note: Codable, Identifiable, Equatable {
        var id: Int
        var title: String
        var stars: Double
        var pinned: Bool
        var archived: Bool
        var created: Date
        var token: UUID
        var price: Decimal
        var comment: String?
        var place: Place
        var mood: Mood
        var titleLength: Int { title.count }
    }

    final class NoteEntity: Storable {
        var id = 0, title = "", stars = 0.0, pinned = false, archived = false
        var created = Date(timeIntervalSinceReferenceDate: 0), token = UUID(), price = Decimal(0)
        var comment: String?
        var place = Place(city: "", zip: 0)
        var mood = Mood.calm
    }

    static var sample: NoteEntity {
        let entity = NoteEntity()
        entity.id = 1
        entity.title = "first"
        entity.place = Place(city: "Oslo", zip: 150)
        return entity
    }

    /// What the proof says of each key path, as a dictionary of the proven ones.
    func proof<Domain: Decodable, Entity: Storable>(_ domain: Domain.Type, _ entity: Entity.Type, sample: Entity)
        -> Proven<Domain>
    {
        Proven(proof: FieldProof<Domain, Entity>(mapper: EntityMapper()) { sample })
    }

    struct Proven<Domain> {
        let proof: (AnyKeyPath) -> FieldPath?
        init<Entity>(proof: FieldProof<Domain, Entity>) { self.proof = proof.field(for:) }
        subscript(_ keyPath: PartialKeyPath<Domain>) -> FieldPath? { proof(keyPath) }
    }

    @Test func everyStoredScalarPropertyOfAPlainStructIsProvenUnderItsName() {
        let fields = proof(Note.self, NoteEntity.self, sample: Self.sample)
        #expect(fields[\Note.id] == "id")
        #expect(fields[\Note.title] == "title")
        #expect(fields[\Note.stars] == "stars")
        #expect(fields[\Note.pinned] == "pinned")
        #expect(fields[\Note.archived] == "archived")
        #expect(fields[\Note.created] == "created")
        #expect(fields[\Note.token] == "token")
        #expect(fields[\Note.price] == "price")
        #expect(fields[\Note.comment] == "comment")
        #expect(fields[\Note.place.city] == "place.city")
        #expect(fields[\Note.place.zip] == "place.zip")
    }

    @Test func computedPropertiesEnumsAndWholeStructsAreNeverProven() {
        let fields = proof(Note.self, NoteEntity.self, sample: Self.sample)
        #expect(fields[\Note.titleLength] == nil)
        #expect(fields[\Note.mood] == nil)
        #expect(fields[\Note.place] == nil)
    }

    struct Swapped: Codable, Identifiable {
        var id: Int
        var first: String
        var second: String
        enum CodingKeys: String, CodingKey {
            case id
            case first = "second"
            case second = "first"
        }
    }

    struct Plain: Storable {
        var id: Int
        var first: String
        var second: String
    }

    @Test func customCodingKeysThatSwapTwoFieldsProveNeither() {
        let fields = proof(Swapped.self, Plain.self, sample: Plain(id: 1, first: "a", second: "b"))
        #expect(fields[\Swapped.first] == nil)
        #expect(fields[\Swapped.second] == nil)
        #expect(fields[\Swapped.id] == "id")
    }

    struct Doubled: Codable, Identifiable {
        var id: Int
        var first: String
        var second: String
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int.self, forKey: .id) * 2
            first = try container.decode(String.self, forKey: .first)
            second = try container.decode(String.self, forKey: .second).uppercased()
        }
    }

    @Test func aCustomDecoderThatTransformsAValueProvesOnlyTheUntouchedFields() {
        let fields = proof(Doubled.self, Plain.self, sample: Plain(id: 1, first: "a", second: "b"))
        #expect(fields[\Doubled.id] == nil)
        #expect(fields[\Doubled.second] == nil)
        #expect(fields[\Doubled.first] == "first")
    }

    final class ClassDomain: Codable, Identifiable {
        var id = 0, first = "", second = ""
    }

    @Test func aClassDomainProvesNothing() {
        let fields = proof(ClassDomain.self, Plain.self, sample: Plain(id: 1, first: "a", second: "b"))
        #expect(fields[\ClassDomain.id] == nil)
        #expect(fields[\ClassDomain.first] == nil)
    }

    struct DateAsNumber: Storable {
        var id: Int
        var created: Double
    }

    struct Dated: Codable, Identifiable {
        var id: Int
        var created: Double
    }

    @Test func aFieldTheEntityStoresInAnotherRepresentationIsNotProven() {
        struct DomainWithDate: Codable, Identifiable {
            var id: Int
            var created: Date
        }
        let fields = proof(DomainWithDate.self, DateAsNumber.self, sample: DateAsNumber(id: 1, created: 5))
        #expect(fields[\DomainWithDate.created] == nil)
        #expect(fields[\DomainWithDate.id] == "id")
    }
}
