import DAOKit
import Foundation

/// A class domain: reflection lists no stored properties of a class, so nothing about it is
/// proven and every query is evaluated on mapped values; its answers must still be the full
/// scan's on every context, indexes or not.
enum ClassDomainModel: DifferentialModel {
    final class Contact: Codable, Identifiable, Equatable {
        var id: Int
        var name: String
        var score: Double
        var nickname: String?

        init(id: Int, name: String, score: Double, nickname: String?) {
            self.id = id
            self.name = name
            self.score = score
            self.nickname = nickname
        }

        var initial: String { String(name.prefix(1)) }

        static func == (lhs: Contact, rhs: Contact) -> Bool {
            lhs.id == rhs.id && lhs.name == rhs.name && lhs.score == rhs.score && lhs.nickname == rhs.nickname
        }
    }

    struct ContactEntity<Indexing: IndexChoice>: Storable {
        static var indexes: [StorageIndex] {
            Indexing.choose([StorageIndex("name"), StorageIndex("score", "nickname")])
        }
        var id: Int
        var name: String
        var score: Double
        var nickname: String?
    }

    typealias Domain = Contact
    typealias IndexedEntity = ContactEntity<Indexed>
    typealias PlainEntity = ContactEntity<Unindexed>

    static let name = "class domain"

    static let names = ["Ada", "Alan", "Grace", "Édith", "Linus", "ada"]
    static let scores = [-0.0, 0, 2.5, 10, -1e10]
    static let nicknames = ["A", "G", "", "É"]

    static func values(_ random: inout SeededGenerator) -> [Contact] {
        (0..<24).map { index in
            Contact(
                id: 100 - index * 7, name: random.pick(names), score: random.pick(scores),
                nickname: random.chance(35) ? nil : random.pick(nicknames))
        }
    }

    static var fields: [QueryField<Contact>] {
        [
            .comparable("id", \.id, pool: [100, 58, 0, -61, -100]),
            .text("name", \.name, pool: names, fragments: ["A", "a", "É", "E", "ra"]),
            .comparable("score", \.score, pool: scores),
            .optional("nickname", \.nickname, pool: nicknames, show: { $0.debugDescription }),
            .comparable("initial", \.initial, pool: ["A", "G", "É"], show: { $0.debugDescription }),
        ]
    }

    static var sorts: [QuerySort<Contact>] {
        [.by("name", \.name), .by("score", \.score), .by("nickname", \.nickname), .by("initial", \.initial)]
    }

    static var idSort: QuerySort<Contact> { .by("id", \.id) }
}
