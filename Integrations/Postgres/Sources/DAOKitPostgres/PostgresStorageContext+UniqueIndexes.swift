import DAOKit
import DAOKitSQL
import Foundation
import PostgresNIO

/// Unique indexes (``StorageIndex/isUnique``): a PostgreSQL `UNIQUE` index over one expression
/// per field, which the server keeps for every connection and instance, so two instances writing
/// one value at once leave exactly one (the second waits for the first's commit, then fails).
///
/// **What is compared.** Each field's value as Swift compares it: a string in Unicode normal
/// form C (Swift's `==` is canonical equivalence), a number by value (`1` and `1.0` are equal, and
/// so are `-0` and `0`), a `Bool` by value, values of different JSON kinds never; `nil`, NaN and
/// containers are SQL `NULL`, which never collides, as on every context. The index holds the
/// SHA-256 of that text rather than the text itself, so that a value of any length can be kept
/// unique (a B-tree entry holds at most about 2.7 KB). The database must use the UTF-8 encoding
/// (`normalize` needs it).
///
/// **When.** The index is created with the type's other indexes, before the first write of the
/// type by this context; over stored data that already breaks it, creating it fails, and so does
/// the write, naming two records that hold equal values, until the data is put right (an erase or
/// an update through a context that does not declare the index). A batch is judged on the state
/// it leaves: its stored rows are deleted before it writes, so that two of them may swap values
/// (the server checks a unique index row by row).
extension PostgresStorageContext {
    /// The SQLSTATE of a unique violation.
    static let uniqueViolationState = "23505"

    /// Whether `error` (a ``StorageError`` this context made, or a server error) is the server's
    /// report of a unique violation.
    static func isUniqueViolation(_ error: any Error) -> Bool {
        let server = (error as? StorageError)?.underlyingError ?? error
        return PostgresFailure.ServerReport(server)?.state == uniqueViolationState
    }

    /// The ``StorageError/Code/uniqueViolation`` of a save of `keys` (column keys) and `records`
    /// that the server refused as `failure`: the first record, in batch order, whose values in a
    /// unique index another record holds — another record of the batch, or a stored one the batch
    /// does not replace. Looked up after the failed statement was undone (inside the transaction
    /// on a handle, so that its own writes count). `failure` itself when the lookup finds none
    /// (the other record was erased meanwhile).
    func uniqueViolation<E: Storable>(
        of type: E.Type, keys: [String], records: [JSONRecord.Encoded], failure: any Error
    ) async -> any Error {
        let table: String
        do { table = try self.table(E.self) } catch { return failure }
        let numeric = await uniqueNumericFields(of: E.self)
        for index in E.indexes where index.isUnique {
            let match = PostgresSchema.uniqueMatch(of: index, numeric: numeric, between: "a.record", and: "b.record")
            let sql = """
                WITH batch (k, record, position) AS (SELECT * FROM unnest($1::text[], $2::text[]::jsonb[]) \
                WITH ORDINALITY), \
                state (k, record, position) AS (SELECT * FROM batch UNION ALL SELECT daokit_key, record, 0 \
                FROM \(table) WHERE NOT (daokit_key = ANY($1::text[]))) \
                SELECT a.k, b.k FROM batch a JOIN state b ON b.k <> a.k AND b.position < a.position \
                AND \(match) ORDER BY a.position, b.position LIMIT 1
                """
            var binds = PostgresBindings()
            binds.append(keys)
            binds.append(records.map(\.json))
            let found: (String, String)?
            do {
                found = try await withConnection(entityName: E.entityName) { connection in
                    for try await pair in try await connection.query(
                        PostgresQuery(unsafeSQL: sql, binds: binds), logger: Self.logger
                    )
                    .decode((String, String).self) {
                        return pair
                    }
                    return nil
                }
            } catch {
                return failure
            }
            if let (refused, holder) = found {
                return Self.violation(
                    of: index, entityName: E.entityName, key: Self.storageKey(refused),
                    existingKey: Self.storageKey(holder), location: serverDescription)
            }
        }
        return failure
    }

    /// The ``StorageError/Code/uniqueViolation`` of two stored records of `E` with equal values
    /// in `index`, which the server found when it was asked to create the index; the index stays
    /// uncreated. `failure` when none is found.
    func storedDuplicates<E: Storable>(of type: E.Type, index: StorageIndex, failure: any Error) async -> any Error {
        guard let table = try? self.table(E.self) else { return failure }
        let numeric = await uniqueNumericFields(of: E.self)
        let match = PostgresSchema.uniqueMatch(of: index, numeric: numeric, between: "a.record", and: "b.record")
        let sql = """
            SELECT a.daokit_key, b.daokit_key FROM \(table) a JOIN \(table) b ON a.daokit_key > b.daokit_key \
            AND \(match) ORDER BY b.daokit_key, a.daokit_key LIMIT 1
            """
        let found = try? await withConnection(entityName: E.entityName) { connection -> (String, String)? in
            for try await pair in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Self.logger)
                .decode((String, String).self)
            {
                return pair
            }
            return nil
        }
        guard let (later, earlier) = found ?? nil else { return failure }
        return Self.violation(
            of: index, entityName: E.entityName, key: Self.storageKey(later), existingKey: Self.storageKey(earlier),
            location: serverDescription)
    }

    /// The fields of `E` that have held numbers (the kinds recorded on the server): there a
    /// string is a non-finite number or a negative zero, compared as Swift compares those.
    func numericFields<E: Storable>(of type: E.Type) async -> Set<String> {
        let kinds = (try? await self.kinds(of: E.entityName).kinds) ?? [:]
        return Set(kinds.filter { !$0.value.isDisjoint(with: PostgresSchema.numberKinds) }.keys)
    }

    /// The fields whose unique-index expressions read strings as non-finite numbers: as this
    /// context created the indexes, else as the kinds recorded on the server say.
    func uniqueNumericFields<E: Storable>(of type: E.Type) async -> Set<String> {
        if let known = state.withLock({ $0.tables[E.entityName]?.uniqueNumericFields }) { return known }
        return await numericFields(of: E.self)
    }

    /// A ``StorageError/Code/uniqueViolation`` as every context reports one.
    static func violation(
        of index: StorageIndex, entityName: String, key: String, existingKey: String?, location: String
    ) -> StorageError {
        let violation = UniqueIndexViolation(index: index, existingKey: existingKey)
        return StorageError(
            .uniqueViolation(violation.description), entityName: entityName, key: key, location: location,
            underlyingError: violation)
    }
}

extension PostgresSchema {
    /// The kinds of a field that hold numbers (a non-finite `Double` is a JSON string).
    static let numberKinds: Set<JSONRecord.FieldKind> = [.integer, .real, .bigUnsigned, .date, .decimal, .nonFinite]

    /// The text a unique index compares for `field` of the row `record` (SQL, a `jsonb`): a
    /// tag for the JSON kind, then the value as Swift compares it — a string in normal form C, a
    /// number without trailing zeros — or `NULL` (never equal) for `null`, a container and, in a
    /// field that holds numbers (`numeric`), NaN; there a negative zero is `0` and an infinity
    /// its name. Hashed with SHA-256 (see ``keyHash(_:)``) so that any length fits an index.
    static func uniqueExpression(_ field: String, numeric: Bool, record: String = "record") -> String {
        let value = "(\(record) -> \(literal(field)))"
        let text = "(\(value) #>> '{}')"
        let string =
            numeric
            ? """
            CASE WHEN \(value) = \(literal(JSONRecord.negativeZero))::jsonb THEN 'n0' \
            WHEN \(text) = 'NaN' THEN NULL ELSE 'n' || \(text) END
            """
            : "'s' || normalize(\(text), NFC)"
        let canonical = """
            CASE jsonb_typeof(\(value)) WHEN 'number' THEN 'n' || trim_scale((\(value))::numeric)::text \
            WHEN 'boolean' THEN 'b' || \(text) WHEN 'string' THEN \(string) END
            """
        return "(\(keyHash("(\(canonical))")))"
    }

    /// The condition that the rows `left` and `right` (SQL, `jsonb` records) hold equal values in
    /// every field of `index`, as its unique index compares them; `numeric` names the fields that
    /// hold numbers.
    static func uniqueMatch(of index: StorageIndex, numeric: Set<String>, between left: String, and right: String)
        -> String
    {
        index.fields.map { field in
            let name = field.keys[0]
            return uniqueExpression(name, numeric: numeric.contains(name), record: left) + " = "
                + uniqueExpression(name, numeric: numeric.contains(name), record: right)
        }
        .joined(separator: " AND ")
    }

    /// The statement that creates a declared unique index, over the expressions of
    /// ``uniqueExpression(_:numeric:record:)``; `numeric` names the fields that hold numbers.
    /// The caller refuses one on a nested path.
    static func createUniqueIndex(
        _ index: StorageIndex, position: Int, entityName: String, schema: String, numeric: Set<String>
    ) -> String {
        let columns = index.fields.map { uniqueExpression($0.keys[0], numeric: numeric.contains($0.keys[0])) }
        let suffix = "\(position)_" + String(stableHash(schema + "\u{0}" + entityName), radix: 16)
        return """
            CREATE UNIQUE INDEX IF NOT EXISTS \(quoted("daokit_u" + suffix)) ON \(quoted(schema)).\(quoted(entityName)) \
            (\(columns.joined(separator: ", ")))
            """
    }
}

/// The server refused to create `index` over the stored rows (a unique violation): the caller
/// looks up two records that break it.
struct UniqueIndexCreationFailed: Error, CustomStringConvertible {
    let index: StorageIndex
    let underlying: any Error
    var description: String { "\(underlying)" }
}
