import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKit
@testable import DAOKitFileStore

/// One rule for URLs in every context (issue 15, bug 3): a URL reads back `==` the one stored —
/// a relative URL with its base, at any depth — and an absolute URL is still stored as its string.
@Suite("Relative URLs in every context")
struct RelativeURLStorageTests {
    static let factories: [ContextFactory] = ContextFactory.core + [.fileJSON, .filePropertyList]
    static let base = URL(string: "https://example.com/base/")!
    static let relative = URL(string: "rel/path.png", relativeTo: base)!

    static let entity = Attachment(
        id: "a1",
        link: relative,
        absolute: URL(string: "https://example.com/x.png")!,
        missing: nil,
        gallery: [relative, URL(string: "https://example.com/y.png")!, URL(string: "../up.png", relativeTo: base)!],
        thumbnail: Thumbnail(source: relative, sizes: [32, 64]),
        byName: ["cover": relative],
        optionals: [nil, relative])

    @Test(arguments: factories)
    func aRelativeURLReadsBackEqualWithItsBase(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try fresh.context.save([Self.entity])
        let fetched = try #require(try fresh.context.fetch(Attachment.self, id: "a1"))
        #expect(fetched == Self.entity, "\(factory)")
        #expect(fetched.link.baseURL == Self.base, "\(factory): \(fetched.link.baseURL?.absoluteString ?? "no base")")
        #expect(fetched.link.relativeString == "rel/path.png", "\(factory)")
        #expect(fetched.thumbnail.source.baseURL == Self.base, "\(factory)")
        #expect(try fresh.context.fetchAll(Attachment.self) == [Self.entity], "\(factory)")
    }

    @Test(arguments: factories)
    func aRelativeURLSurvivesADao(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let dao = BaseDao<Photo, PhotoEntity>(context: fresh.context)
        let photo = Photo(id: 1, url: Self.relative)
        try dao.persist(photo)
        #expect(try dao.read(id: 1) == photo, "\(factory)")
        #expect(try dao.read(id: 1)?.url.baseURL == Self.base, "\(factory)")
    }

    /// JSON records keep their layout for everything but URLs with a base: an absolute URL is its
    /// string, as `jq` users and earlier records expect.
    @Test func jsonRecordsWriteAnAbsoluteURLAsItsStringAndARelativeOneWithItsBase() throws {
        let text = try KeyValueRecordFormat.encode(
            PhotoEntity(id: 1, url: URL(string: "https://example.com/x.png")!), location: "k")
        #expect(
            text.dropFirst(KeyValueRecordFormat.sealLength) == #""entity":{"id":1,"url":"https://example.com/x.png"}}"#)
        let relative = try KeyValueRecordFormat.encode(PhotoEntity(id: 1, url: Self.relative), location: "k")
        #expect(
            relative.dropFirst(KeyValueRecordFormat.sealLength)
                == #""entity":{"id":1,"url":{"base":"https://example.com/base/","relative":"rel/path.png"}}}"#)
        let file = try RecordCodec(format: .json).encode(PhotoEntity(id: 1, url: Self.relative), key: "1")
        #expect(
            String(decoding: file, as: UTF8.self)
                == #"{"checksum":"bd0d6bbf","entity":{"id":1,"url":{"base":"https://example.com/base/","relative":"rel/path.png"}},"formatVersion":2,"key":"1"}"#
        )
    }

    /// A record written before relative URLs kept their base (the absolute string) still reads.
    @Test func anOlderRecordWithTheAbsoluteStringStillReads() throws {
        let store = InMemoryKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save([PhotoEntity(id: 1, url: Self.relative)])
        store.setString(#"{"id":1,"url":"https://example.com/base/rel/path.png"}"#, forKey: "DAOKit/PhotoEntity/1")
        #expect(try context.fetch(PhotoEntity.self, id: 1)?.url == Self.relative.absoluteURL)
    }

    /// The wrappers write exactly what JSONEncoder writes for values without a relative URL.
    @Test func theWrappersWriteWhatJSONEncoderWritesForEverythingElse() throws {
        struct Mixed: Codable, Equatable {
            var date = Date(timeIntervalSinceReferenceDate: 12.5)
            var data = Data([0, 1, 2])
            var decimal = Decimal(string: "3.14159")!
            var uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
            var nested = [["a": [1, 2]], ["b": []]]
            var optional: Int? = nil
            var ints: [Int: String] = [1: "one", 2: "two"]
            var url = URL(string: "https://example.com/")!
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let plain = try encoder.encode(Mixed())
        let wrapped = try encoder.encode(URLKeepingEncodable(value: Mixed()))
        #expect(String(decoding: wrapped, as: UTF8.self) == String(decoding: plain, as: UTF8.self))
        #expect(try JSONDecoder().decode(URLKeepingDecodable<Mixed>.self, from: plain).value == Mixed())
    }
}

struct Thumbnail: Codable, Equatable {
    var source: URL
    var sizes: [Int]
}

struct Attachment: Storable, Equatable {
    var id: String
    var link: URL
    var absolute: URL
    var missing: URL?
    var gallery: [URL]
    var thumbnail: Thumbnail
    var byName: [String: URL]
    var optionals: [URL?]
}

struct Photo: Codable, Identifiable, Equatable {
    var id: Int
    var url: URL
}

struct PhotoEntity: Storable {
    var id: Int
    var url: URL
}
