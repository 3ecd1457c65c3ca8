// Turns the ```swift blocks of README.md and of every DocC article (Sources/*/*.docc/*.md) into one
// Swift Testing file per document, so that a sample cannot drift from the code: the test compiles
// the document's declarations and runs its statements in order. The rules are written for writers
// in CONTRIBUTING.md ("Code samples in documentation"); in short:
//
// - Imports anywhere in a document are the generated file's imports.
// - A declaration at the top level of a block (struct, enum, class, actor, protocol, extension,
//   func, typealias, with its attributes and comments) goes to file scope, made `private` when it
//   names no access level, so that two documents may both declare a `Message`.
// - Every other line is a statement of the document's one test function, in document order, so a
//   later block uses what an earlier one made. The function is `async throws` when some statement
//   awaits, else `throws` (in `async` code BaseDao's `async` overloads win: such a document writes
//   `try await`).
// - `folder` is a fresh, empty temporary directory of the document's, removed after the test.
// - Each constant or variable a statement declares at the top level is read once at the end, so a
//   sample may show a result it does not use again without a compiler warning.
// - Where the document's imports name a module DAOKit may not depend on, its file goes to the
//   package that has it: Hummingbird to Integrations/ServerDocSamples, DAOKitPostgres to
//   Integrations/Postgres.
// - A block whose info string is `swift manifest` (a Package.swift excerpt) is not compiled; any
//   other info string (`text`, `sh`, none) is not Swift.
import Foundation

/// One ```swift block of a document.
public struct DocSampleBlock: Equatable, Sendable {
    /// The document's line of the block's first code line (1-based).
    public var line: Int
    /// The block's lines, without the fence and without the indentation the fence had.
    public var lines: [String]
}

/// A document's samples, split into what goes where in the generated file.
public struct DocSampleDocument: Sendable {
    /// The document's path relative to the package root (`README.md`, `Sources/DAOKit/DAOKit.docc/Servers.md`).
    public var path: String
    /// The compiled blocks, in order.
    public var blocks: [DocSampleBlock]
    /// How many ```swift manifest blocks it has (listed, not compiled).
    public var manifestBlocks: Int
}

/// Why a document cannot be turned into a test.
public struct DocSampleError: Error, CustomStringConvertible, Sendable {
    public var description: String
}

public enum DocSampleGenerator {
    /// Where each kind of document's test file goes, relative to the package root.
    public static let coreDirectory = "Tests/DocSampleTests/Generated"
    public static let postgresDirectory = "Integrations/Postgres/Tests/DAOKitPostgresDocSampleTests/Generated"
    public static let serverDirectory = "Integrations/ServerDocSamples/Tests/ServerDocSampleTests/Generated"
    /// Every directory the generator writes into (a file there that it does not write is stale).
    public static let outputDirectories = [coreDirectory, postgresDirectory, serverDirectory]

    /// Modules whose documents go to the server-samples package, and to the PostgreSQL package.
    static let serverModules: Set<String> = ["Hummingbird", "HummingbirdWebSocket", "ServiceLifecycle"]
    static let postgresModules: Set<String> = ["DAOKitPostgres", "PostgresNIO"]

    /// The documents whose samples are compiled: README.md and every article of every DocC catalog.
    public static func documentPaths(root: URL) throws -> [String] {
        var paths = ["README.md"]
        let fileManager = FileManager.default
        let sources = root.appendingPathComponent("Sources")
        for module in try fileManager.contentsOfDirectory(atPath: sources.path).sorted() {
            let moduleURL = sources.appendingPathComponent(module)
            for entry in try fileManager.contentsOfDirectory(atPath: moduleURL.path).sorted()
            where entry.hasSuffix(".docc") {
                let catalog = moduleURL.appendingPathComponent(entry)
                for file in try fileManager.contentsOfDirectory(atPath: catalog.path).sorted()
                where file.hasSuffix(".md") {
                    paths.append("Sources/\(module)/\(entry)/\(file)")
                }
            }
        }
        return paths
    }

    /// Every generated file, by its path relative to the package root, with its contents.
    public static func generatedFiles(root: URL) throws -> [String: String] {
        var files: [String: String] = [:]
        for path in try documentPaths(root: root) {
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            let document = try parse(text, path: path)
            guard !document.blocks.isEmpty else { continue }
            let (directory, contents) = try generate(document)
            let name = path == "README.md" ? "README" : identifier(for: path)
            files["\(directory)/\(name).swift"] = contents
        }
        return files
    }

    /// The ```swift blocks of a Markdown document.
    public static func parse(_ text: String, path: String) throws -> DocSampleDocument {
        var blocks: [DocSampleBlock] = []
        var manifests = 0
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        var index = 0
        while index < lines.count {
            let line = lines[index]
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("```") else {
                index += 1
                continue
            }
            let indent = line.count - trimmed.count
            let fence = trimmed.prefix { $0 == "`" }
            let info = trimmed.dropFirst(fence.count).trimmingCharacters(in: .whitespaces)
            let words = info.split(separator: " ").map(String.init)
            var body: [String] = []
            var end = index + 1
            while end < lines.count {
                let candidate = lines[end].drop { $0 == " " }
                if candidate.hasPrefix(fence)
                    && candidate.trimmingCharacters(in: .whitespaces).allSatisfy({ $0 == "`" })
                {
                    break
                }
                body.append(String(lines[end].dropFirst(min(indent, lines[end].prefix { $0 == " " }.count))))
                end += 1
            }
            guard end < lines.count else {
                throw DocSampleError(description: "\(path):\(index + 1): a code block that is never closed")
            }
            if words.first == "swift" {
                if words.dropFirst() == ["manifest"] {
                    manifests += 1
                } else if words.count == 1 {
                    blocks.append(DocSampleBlock(line: index + 2, lines: body))
                } else {
                    throw DocSampleError(
                        description: "\(path):\(index + 1): unknown info string \"\(info)\" (swift, or swift manifest)")
                }
            }
            index = end + 1
        }
        return DocSampleDocument(path: path, blocks: blocks, manifestBlocks: manifests)
    }

    /// The directory and contents of a document's test file.
    public static func generate(_ document: DocSampleDocument) throws -> (directory: String, contents: String) {
        var imports: [String] = []
        var declarations: [String] = []
        var statements: [String] = []
        var names: [String] = []
        for block in document.blocks {
            let split = try split(block, path: document.path)
            for module in split.imports where !imports.contains(module) { imports.append(module) }
            if !split.declarations.isEmpty {
                if !declarations.isEmpty { declarations.append("") }
                declarations.append(contentsOf: split.declarations)
            }
            if !split.statements.isEmpty {
                statements.append("// \(document.path):\(block.line)")
                statements.append(contentsOf: split.statements)
            }
            names.append(contentsOf: split.names)
        }
        let modules = Set(imports)
        let directory =
            !modules.isDisjoint(with: serverModules)
            ? serverDirectory
            : !modules.isDisjoint(with: postgresModules) ? postgresDirectory : coreDirectory
        for module in ["Foundation", "Testing"] where !imports.contains(module) { imports.append(module) }

        let isAsync = statements.contains { containsWord("await", in: $0) }
        let usesFolder =
            statements.contains { containsWord("folder", in: $0) }
            || declarations.contains { containsWord("folder", in: $0) }
        var out: [String] = []
        // The samples keep the document's layout (aligned comments, a reader's line breaks).
        out.append("// swift-format-ignore-file")
        out.append("// Generated from \(document.path) by `swift run generate-doc-samples`: do not edit.")
        out.append("// Edit the document and run the command; DocSampleFreshnessTests fails while this file is stale.")
        out.append("// The rules: CONTRIBUTING.md, \"Code samples in documentation\".")
        for module in imports.sorted() { out.append("import \(module)") }
        out.append("")
        if !declarations.isEmpty {
            out.append(contentsOf: declarations)
            out.append("")
        }
        let function = identifier(for: document.path)
        guard !statements.isEmpty else {
            // Declarations only: compiling them is the check.
            while out.last == "" { out.removeLast() }
            return (directory, out.joined(separator: "\n") + "\n")
        }
        out.append("/// Runs the statements of \(document.path)'s samples in document order.")
        out.append("@Test(\"\(document.path): its samples compile and run\")")
        out.append("func \(functionName(for: document.path))() \(isAsync ? "async throws" : "throws") {")
        if usesFolder {
            out.append("    let folder = FileManager.default.temporaryDirectory")
            out.append(
                "        .appendingPathComponent(\"doc-sample-\(function)-\\(UUID().uuidString)\", isDirectory: true)")
            out.append("    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)")
            out.append("    defer { try? FileManager.default.removeItem(at: folder) }")
        }
        for line in statements { out.append(line.isEmpty ? "" : "    " + line) }
        if !names.isEmpty {
            out.append("    // Every top-level constant and variable of the samples, read once.")
            for name in names { out.append("    _ = \(name)") }
        }
        out.append("}")
        return (directory, out.joined(separator: "\n") + "\n")
    }

    // MARK: - Splitting a block

    struct Split {
        var imports: [String] = []
        var declarations: [String] = []
        var statements: [String] = []
        var names: [String] = []
    }

    static let declarationKeywords: Set<String> = [
        "struct", "enum", "class", "actor", "protocol", "extension", "func", "typealias",
    ]
    static let modifiers: Set<String> = [
        "final", "public", "private", "fileprivate", "internal", "package", "open", "nonisolated", "indirect",
    ]
    static let accessLevels: Set<String> = ["public", "private", "fileprivate", "internal", "package", "open"]

    static func split(_ block: DocSampleBlock, path: String) throws -> Split {
        var result = Split()
        var pending: [String] = []  // comments and attribute lines waiting for what they belong to
        var index = 0
        let lines = block.lines
        while index < lines.count {
            let line = lines[index]
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("import ") {
                result.imports.append(String(trimmed.dropFirst(7)).trimmingCharacters(in: .whitespaces))
                index += 1
                continue
            }
            if trimmed.hasPrefix("//") || isAttributeOnly(trimmed) {
                pending.append(line)
                index += 1
                continue
            }
            // Collect one top-level item: lines until the braces, brackets and parentheses close.
            var item = [line]
            var depth = nesting(of: line)
            var end = index + 1
            while depth > 0 || (end < lines.count && continues(lines[end])) {
                guard end < lines.count else {
                    throw DocSampleError(description: "\(path):\(block.line + index): unbalanced braces in this sample")
                }
                item.append(lines[end])
                depth += nesting(of: lines[end])
                end += 1
            }
            if trimmed.isEmpty {
                if !pending.isEmpty {
                    result.statements.append(contentsOf: pending)
                    pending = []
                }
                result.statements.append("")
            } else if let keywordLine = declarationLine(trimmed) {
                result.declarations.append("// \(path):\(block.line + index - pending.count)")
                result.declarations.append(contentsOf: pending)
                pending = []
                item[0] = keywordLine.isEmpty ? line : keywordLine
                result.declarations.append(contentsOf: item)
                result.declarations.append("")
            } else {
                result.statements.append(contentsOf: pending)
                pending = []
                result.statements.append(contentsOf: item)
                result.names.append(contentsOf: declaredNames(trimmed))
            }
            index = end
        }
        result.statements.append(contentsOf: pending)
        while result.statements.last == "" { result.statements.removeLast() }
        while result.statements.first == "" { result.statements.removeFirst() }
        while result.declarations.last == "" { result.declarations.removeLast() }
        return result
    }

    /// The line of a declaration with `private` added where it names no access level; "" when it is a
    /// declaration to keep as it is (an extension); nil when it is not a declaration.
    static func declarationLine(_ trimmed: String) -> String? {
        var tokens = Substring(trimmed)
        var prefix = ""
        // Attributes before the keyword (`@MainActor final class`), with their arguments.
        while tokens.hasPrefix("@") {
            var depth = 0
            var taken = ""
            for character in tokens {
                if character == "(" { depth += 1 }
                if character == ")" { depth -= 1 }
                if character == " " && depth == 0 { break }
                taken.append(character)
            }
            prefix += taken + " "
            tokens = tokens.dropFirst(taken.count).drop { $0 == " " }
        }
        var words: [String] = []
        var rest = tokens
        while let word = rest.split(separator: " ", maxSplits: 1).first.map(String.init) {
            words.append(word)
            rest = rest.dropFirst(word.count).drop { $0 == " " }
            if !modifiers.contains(word) { break }
        }
        guard let keyword = words.last, declarationKeywords.contains(keyword),
            words.dropLast().allSatisfy({ modifiers.contains($0) })
        else { return nil }
        if keyword == "extension" || words.contains(where: { accessLevels.contains($0) }) { return "" }
        return prefix + "private " + tokens
    }

    /// Whether a line holds attributes only (`@MainActor`, `@available(macOS 15, *)`).
    static func isAttributeOnly(_ trimmed: String) -> Bool {
        guard trimmed.hasPrefix("@") else { return false }
        var depth = 0
        var atTokenStart = true
        for character in trimmed {
            if character == "(" { depth += 1 } else if character == ")" { depth -= 1 }
            if depth == 0 && atTokenStart && character != "@" && character != " " { return false }
            atTokenStart = depth == 0 && character == " "
        }
        return true
    }

    /// Whether a line goes on the item above it (a method chain or an operator that starts it).
    static func continues(_ line: String) -> Bool {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        return trimmed.hasPrefix(".") || trimmed.hasPrefix("?") && trimmed.count > 1 && !trimmed.hasPrefix("??")
    }

    /// The names a top-level `let` or `var` statement declares (`let a`, `var (a, b)`, `let a: T`).
    static func declaredNames(_ trimmed: String) -> [String] {
        for keyword in ["let ", "var "] where trimmed.hasPrefix(keyword) {
            let rest = trimmed.dropFirst(keyword.count).drop { $0 == " " }
            if rest.hasPrefix("(") {
                return rest.dropFirst().prefix { $0 != ")" }.split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }.filter { $0 != "_" && !$0.isEmpty }
            }
            let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            return name.isEmpty || name == "_" ? [] : [String(name)]
        }
        return []
    }

    /// Opening minus closing braces, brackets and parentheses on a line, outside string literals
    /// and comments.
    public static func nesting(of line: String) -> Int {
        var depth = 0
        var inString = false
        var escaped = false
        var previous: Character = " "
        var interpolation: [Int] = []  // the depth at which each open interpolation started
        for character in line {
            if inString {
                if escaped {
                    escaped = false
                    if character == "(" {
                        interpolation.append(depth)
                        depth += 1
                        inString = false
                    }
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inString = false
                }
                previous = character
                continue
            }
            if character == "/" && previous == "/" { break }
            switch character {
            case "\"": inString = true
            case "{", "[", "(": depth += 1
            case "}", "]": depth -= 1
            case ")":
                depth -= 1
                if let start = interpolation.last, start == depth {
                    interpolation.removeLast()
                    inString = true
                }
            default: break
            }
            previous = character
        }
        return depth
    }

    static func containsWord(_ word: String, in line: String) -> Bool {
        var searchRange = line.startIndex..<line.endIndex
        while let range = line.range(of: word, range: searchRange) {
            let before = range.lowerBound == line.startIndex ? " " : line[line.index(before: range.lowerBound)]
            let after = range.upperBound == line.endIndex ? " " : line[range.upperBound]
            if !(before.isLetter || before.isNumber || before == "_")
                && !(after.isLetter || after.isNumber || after == "_")
            {
                return true
            }
            searchRange = range.upperBound..<line.endIndex
        }
        return false
    }

    /// A Swift identifier naming a document: `README`, `ScalingOutWithPostgreSQL`.
    static func identifier(for path: String) -> String {
        let base = (path as NSString).lastPathComponent.replacingOccurrences(of: ".md", with: "")
        return base.filter { $0.isLetter || $0.isNumber }
    }

    /// The test function's name: `readmeSamples`, `scalingOutWithPostgreSQLSamples`.
    static func functionName(for path: String) -> String {
        let name = identifier(for: path)
        let lowered = name == name.uppercased() ? name.lowercased() : name.prefix(1).lowercased() + name.dropFirst()
        return "samples" == lowered ? "samples" : lowered + "Samples"
    }
}
