import DAOKit

/// The record files of each format found in a store while it is opened, to refuse a store that
/// holds records in a format other than the context's: reading it would show an empty or partial
/// store, and writing would put a second copy of a record beside the one in the other format.
/// Opening lists every entity directory anyway (for leftovers), so this costs no extra call.
struct FormatCensus {
    let format: FileStorageContext.RecordFormat
    private(set) var own = 0
    private(set) var other = 0
    /// One record file of the other format, relative to the store, for the message.
    private(set) var example: String?

    init(format: FileStorageContext.RecordFormat) {
        self.format = format
    }

    /// Counts a file of an entity directory (`<entity>/<file>`) by its extension.
    mutating func count(_ relativePath: String) {
        if relativePath.hasSuffix("." + format.fileExtension) {
            own += 1
        } else if relativePath.hasSuffix("." + otherFormat.fileExtension) {
            other += 1
            // The first by name, so that the message does not depend on the directory's order.
            if example.map({ relativePath < $0 }) ?? true { example = relativePath }
        }
    }

    private var otherFormat: FileStorageContext.RecordFormat {
        format == .json ? .propertyList : .json
    }

    /// Why the store cannot be opened with ``format``; `nil` when it can.
    var problem: String? {
        guard other > 0, let example else { return nil }
        let others = "\(other) .\(otherFormat.fileExtension) file\(other == 1 ? "" : "s")"
        if own == 0 {
            return
                "the store holds \(Self.name(otherFormat)) records (\(others), such as \(example)), not \(Self.name(format)) ones; "
                + "open it with format: .\(otherFormat == .json ? "json" : "propertyList")"
        }
        return
            "the store holds records in two formats (\(own) .\(format.fileExtension) file\(own == 1 ? "" : "s") and \(others), "
            + "such as \(example)), and a context reads only one; `dao verify` lists them"
    }

    private static func name(_ format: FileStorageContext.RecordFormat) -> String {
        format == .json ? "JSON" : "property-list"
    }
}
