import BenchmarkModels

/// The record envelope `FileStorageContext` writes (`{"checksum":"…","entity":{…},"formatVersion":2,"key":"…"}`;
/// the checksum is written by ``RawRecordFiles/encode(_:)`` and ignored when reading),
/// declared by hand as an app reading and writing such files without DAOKit would declare it.
///
/// It holds the domain `Message` directly: `Message` and `MessageEntity` have the same fields, so
/// the JSON is byte for byte the same (verified before timing), and the raw baseline needs no
/// mapping at all, which is the point of comparing against it.
struct RawRecord: Codable {
    var formatVersion: Int
    var key: String
    var entity: Message
}
