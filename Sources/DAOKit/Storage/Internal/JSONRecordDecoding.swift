import Foundation

/// How a context that keeps an entity as JSON reads it back and classifies a failure: shared by the
/// key-value context and `DAOKitSQL`'s `JSONRecord` (the PostgreSQL context's records), so that the
/// same damage is the same error in both. `package`, because `DAOKitSQL` is another module.
package enum JSONRecordDecoding {
    /// The entity JSON `data` holds, of the current version (see the overload with a plan).
    package static func decode<E: Storable>(
        _ type: E.Type, from data: Data, key: @autoclosure () -> String, location: String,
        decoder: JSONDecoder
    ) throws -> E {
        try decode(E.self, from: data, key: key(), location: location, decoder: decoder, plan: nil)
    }

    /// The entity JSON `data` holds, decoded by `decoder` (keeping relative URLs) — through `plan`
    /// when the record is of an older version — with failures classified as
    /// `JSONRecord.decode(_:from:key:location:)` says.
    package static func decode<E: Storable>(
        _ type: E.Type, from data: Data, key: @autoclosure () -> String, location: String,
        decoder: JSONDecoder, plan: ResolutionPlan?
    ) throws -> E {
        do {
            guard let plan else {
                return try RelativeURLCoding.decode(
                    data, plain: { try decoder.decode(E.self, from: $0) },
                    keepingURLs: { try decoder.decode(URLKeepingDecodable<E>.self, from: $0).value })
            }
            // A record of an older version: through its plan (see ResolvedDecoding).
            return try ResolvedDecoding.decode(E.self, plan: plan, key: key()) { resolved in
                try RelativeURLCoding.decode(
                    data, plain: { try decoder.decode(resolved, from: $0) },
                    keepingURLs: { try decoder.decode(URLKeepingDecodable<Resolved<E>>.self, from: $0).value })
            }
        } catch {
            // Only on failure: tell "not JSON" (damaged or written by someone else) from "JSON of
            // the wrong shape" (the entity type changed), because they call for different fixes.
            if (try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)) == nil {
                throw StorageError(
                    .corruptRecord("not valid JSON"), entityName: E.entityName, key: key(),
                    location: location, underlyingError: error)
            }
            throw StorageError(
                .decodingFailed, entityName: E.entityName, key: key(), location: location,
                underlyingError: JSONDecodingDiagnosis.bestError(
                    error, entity: JSONDecodingDiagnosis.parse(data), as: E.self))
        }
    }
}
