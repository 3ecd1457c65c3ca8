import DAOKit
import DAOKitStoreFormat
import Foundation

extension FileStorageContext {
    /// How a ``FileStorageContext`` serializes each record file.
    ///
    /// Either way a record is an envelope with three fields: `formatVersion` (2, with a checksum;
    /// 1 for records of earlier releases, without),
    /// `key` (the real ``StorageKey/storageKey``, which hashed file names cannot give back) and
    /// `entity` (the entity as its `Codable` conformance encodes it). A store holds one format:
    /// opening a store whose records are in the other one throws ``StorageError/Kind/wrongFormat(_:)``.
    public enum RecordFormat: Sendable, Equatable {
        /// UTF-8 JSON with sorted keys and unescaped slashes, in `.json` files, readable by `jq`:
        /// `{"checksum":"1a2b3c4d","entity":{…},"formatVersion":2,"key":"42"}`, where `checksum` is
        /// the CRC-32C of every byte after it (a record edited by hand must drop it and say
        /// `"formatVersion":1`). Dates are `Double` seconds since
        /// 2001-01-01 and `Data` is Base64 (JSONEncoder's defaults); non-finite floating-point
        /// values are the strings `"NaN"`, `"+Infinity"` and `"-Infinity"`.
        case json
        /// Binary property lists (`bplist00`) in `.plist` files, readable by `plutil`. The checksum
        /// (the CRC-32C of every other byte) is in 5 of the trailer's unused bytes, which property
        /// list readers ignore.
        case propertyList

        /// The file extension of record files, without the dot.
        public var fileExtension: String {
            switch self {
            case .json: return FileStoreLayout.jsonFileExtension
            case .propertyList: return FileStoreLayout.propertyListFileExtension
            }
        }

        /// The envelope's `formatVersion` this release writes; it also reads 1. Shared
        /// with the `dao` tool, which checks records without decoding their entities.
        package static let formatVersion = RecordEnvelope.formatVersion

        /// The name of the file that holds the record of `key`: the key encoded by
        /// ``FileNameCodec`` (or its hash, when too long for a file name), a dot and the extension.
        package func fileName(forKey key: String) -> String {
            let fileExtension = self.fileExtension
            return FileNameCodec.encode(key, suffixLength: fileExtension.utf8.count + 1) + "." + fileExtension
        }

        /// The key a record file's name stands for; `nil` for a hashed name (the key is only
        /// inside the record), another format's file, or a name the store would never give.
        package func key(fromFileName name: String) -> String? {
            let fileExtension = self.fileExtension
            guard name.hasSuffix("." + fileExtension) else { return nil }
            return FileNameCodec.decode(String(name.dropLast(fileExtension.utf8.count + 1)))
        }
    }
}
