import Foundation

/// The snapshot files of an entity in a folder: `<entityName>.v<version>.shape`, the entity name
/// percent-escaped outside `A–Z a–z 0–9 - _`, so that any name makes one file name.
///
/// ```
/// # The stored shape of tasks at version 2, recorded by DAOKitTesting's EntityShapeCheck.
/// # Commit this file and do not edit it: every later version is checked against it.
/// @entity tasks
/// @version 2
/// id: string
/// title: string
/// due: date?
/// ```
enum ShapeSnapshotFile {
    static func url(in folder: URL, entityName: String, version: Int) -> URL {
        folder.appendingPathComponent("\(escaped(entityName)).v\(version).shape", isDirectory: false)
    }

    /// The versions recorded in `folder` for `entityName`, and their files; none when the folder is missing.
    static func versions(in folder: URL, entityName: String) throws -> [Int: URL] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            guard FileManager.default.fileExists(atPath: folder.path) else { return [:] }
            throw ShapeSnapshotError(file: folder.path, line: nil, reason: "the folder cannot be listed (\(error))")
        }
        let prefix = escaped(entityName) + ".v"
        var versions: [Int: URL] = [:]
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".shape") {
            let digits = name.dropFirst(prefix.count).dropLast(".shape".count)
            guard let version = Int(digits), version >= 1, "\(version)" == digits else { continue }
            versions[version] = folder.appendingPathComponent(name, isDirectory: false)
        }
        return versions
    }

    static func text(of shape: EntityShape, entityName: String, version: Int) -> String {
        let header = [
            "# The stored shape of \(entityName) at version \(version), recorded by DAOKitTesting's EntityShapeCheck.",
            "# Commit this file and do not edit it: every later version is checked against it.",
            "@entity \(ShapeText.quoted(entityName))",
            "@version \(version)",
        ]
        return (header + ShapeText.lines(of: shape.fields)).joined(separator: "\n") + "\n"
    }

    static func write(_ shape: EntityShape, entityName: String, version: Int, in folder: URL) throws -> URL {
        let url = url(in: folder, entityName: entityName, version: version)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(text(of: shape, entityName: entityName, version: version).utf8).write(to: url, options: .atomic)
        } catch {
            throw ShapeSnapshotError(file: url.path, line: nil, reason: "the snapshot cannot be written (\(error))")
        }
        return url
    }

    /// The shape a snapshot file records.
    /// - Throws: ``ShapeSnapshotError`` when it cannot be read, is not a snapshot, or records
    ///   another version than its name says.
    static func read(_ url: URL, version: Int) throws -> EntityShape {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw ShapeSnapshotError(file: url.path, line: nil, reason: "the snapshot cannot be read (\(error))")
        }
        var recordedVersion: Int?
        var fieldLines: [(number: Int, text: String)] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix("@entity ") { continue }
            if line.hasPrefix("@version ") {
                guard let number = Int(line.dropFirst("@version ".count)) else {
                    throw ShapeSnapshotError(
                        file: url.path, line: index + 1, reason: "@version is followed by a number")
                }
                recordedVersion = number
                continue
            }
            fieldLines.append((index + 1, line))
        }
        guard let recordedVersion else {
            throw ShapeSnapshotError(file: url.path, line: nil, reason: "it has no @version line")
        }
        guard recordedVersion == version else {
            throw ShapeSnapshotError(
                file: url.path, line: nil,
                reason:
                    "it records version \(recordedVersion) but its name says \(version); rename it or record it again")
        }
        do {
            return EntityShape(fields: try ShapeText.fields(fromLines: fieldLines))
        } catch let error as ShapeSnapshotError {
            throw ShapeSnapshotError(file: url.path, line: error.line, reason: error.reason)
        }
    }

    private static func escaped(_ name: String) -> String {
        var text = ""
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                text += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return text
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}

/// A snapshot file that cannot be read or written, with the file and, where it applies, the line.
///
/// Thrown by ``EntityShapeCheck/verify()`` and ``EntityShapeCheck/record()``: a damaged snapshot
/// is not a shape problem of the entity, so it is reported apart from ``EntityShapeCheckFailure``.
public struct ShapeSnapshotError: Error, CustomStringConvertible, Sendable {
    /// The snapshot file's (or folder's) path.
    public let file: String
    /// The line at fault, counted from 1, when one is.
    public let line: Int?
    /// What is wrong.
    public let reason: String

    /// `<file>:<line>: <reason>`.
    public var description: String {
        "\(file)\(line.map { ":\($0)" } ?? ""): \(reason)"
    }

    static func malformed(line: Int, reason: String) -> ShapeSnapshotError {
        ShapeSnapshotError(file: "", line: line, reason: reason)
    }
}
