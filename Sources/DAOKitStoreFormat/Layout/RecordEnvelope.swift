/// What every record file holds around its entity, and how a record that is not one this release
/// reads is described — the same words from the library's `fetch` and from `dao verify`.
///
/// A record is an envelope with three fields: `formatVersion`, `key` (the real storage key, which
/// a hashed file name cannot give back) and `entity`. The library decodes it with `Codable`
/// (`RecordCodec`); the tool, which has no Swift types for entities, parses it (`RecordReader`).
package enum RecordEnvelope {
    /// The envelope's `formatVersion` this release writes, and the only one it reads.
    package static let formatVersion = 1

    /// The problem with a record of another format version.
    package static func unsupportedVersion(_ version: some BinaryInteger) -> String {
        "format version \(version) is not supported; this release reads version \(formatVersion)"
    }

    /// The problem with a record whose file is not the one its key names: `fetch(id:)` looks only
    /// where the key says, so such a record is invisible there and counts as damage.
    package static func misplacedKey(_ key: String) -> String {
        "the file name does not match the key inside, \(key.debugDescription)"
    }
}
