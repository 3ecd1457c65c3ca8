import Foundation

/// The records a whole-list read (``StorageContext/fetchAll(_:)``) could not read, when there are
/// several: the ``StorageError/underlyingError`` of the ``StorageError`` it throws.
///
/// Each failure is the error reading that record alone would throw (``StorageContext/fetch(_:id:)``
/// gives the same kind), so a caller can tell them apart and act on each one.
public struct RecordFailures: Error, CustomStringConvertible, Sendable {
    /// One error per record, ordered by location (file path or store key), then key.
    public let failures: [StorageError]

    /// Collects `failures`, ordering them by location and key.
    public init(_ failures: [StorageError]) {
        self.failures = failures.sorted { ($0.location ?? "", $0.key ?? "") < ($1.location ?? "", $1.key ?? "") }
    }

    /// One short line per record, as ``StorageError/description`` lists them.
    public var description: String {
        failures.map(Self.line).joined(separator: "\n")
    }

    /// The longest reason a line gives; the full error is in ``failures``.
    static let maximumReasonLength = 160

    /// `"<key>" at <location>: <reason>`, with the reason cut to ``maximumReasonLength``.
    static func line(_ failure: StorageError) -> String {
        var line = failure.key.map { $0.debugDescription } ?? "?"
        if let location = failure.location { line += " at \(location)" }
        var reason = failure.shortReason
        if reason.count > maximumReasonLength { reason = String(reason.prefix(maximumReasonLength - 1)) + "…" }
        return line + ": " + reason
    }
}

extension StorageError {
    /// Throws what a whole-list read throws for the records that failed: nothing when none did, the
    /// one failure as it is, or one error combining them (see `init(combining:entityName:location:)`).
    public static func throwIfAny(_ failures: [StorageError], entityName: String, location: String?) throws {
        if failures.count == 1 { throw failures[0] }
        if failures.count > 1 { throw StorageError(combining: failures, entityName: entityName, location: location) }
    }

    /// One error for a whole-list read that failed on several records (a single failure is thrown
    /// as it is). Its kind is the failures' kind when they all have the same one; otherwise the
    /// most serious among them — `.io`, then `.corruptRecord`, with the detail "<n> records cannot
    /// be read" — and `.decodingFailed` when every record is sound but does not decode. So a caller
    /// switching on the kind never misses a damaged store behind an entity that merely changed.
    init(combining failures: [StorageError], entityName: String, location: String?) {
        let list = RecordFailures(failures)
        let kinds = list.failures.map(\.kind)
        let summary = "\(kinds.count) records cannot be read"
        let kind: Kind
        if let first = kinds.first, kinds.allSatisfy({ $0 == first }) {
            kind = first
        } else if kinds.contains(where: { if case .io = $0 { true } else { false } }) {
            kind = .io(summary)
        } else if kinds.contains(where: { if case .corruptRecord = $0 { true } else { false } }) {
            kind = .corruptRecord(summary)
        } else {
            kind = .decodingFailed
        }
        self.init(kind, entityName: entityName, location: location, underlyingError: list)
    }

    /// The reason without the entity, key and location, and with the underlying error cut down to
    /// what identifies the problem: a mapping error's reason and path, a decoding error's path and
    /// debug description — not the several lines `DecodingError` prints.
    var shortReason: String {
        switch code {
        case .corruptRecord, .io: return reason
        default:
            guard let underlyingError else { return reason }
            return reason + ": " + Self.summary(of: underlyingError)
        }
    }

    private static func summary(of error: any Error) -> String {
        switch error {
        case let error as MappingError:
            return "\(error.reasonText) at \(error.path)"
        case let error as DecodingError:
            let context: DecodingError.Context?
            switch error {
            case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c):
                context = c
            @unknown default: context = nil
            }
            guard let context else { return "\(error)" }
            // Inside a file record the path starts at the envelope's `entity` field: leave it out.
            let keys =
                context.codingPath.first?.stringValue == "entity"
                ? Array(context.codingPath.dropFirst()) : context.codingPath
            let path = MappingPath.render(keys)
            return "\(context.debugDescription) at \(path)"
        default:
            return "\(error)"
        }
    }
}
