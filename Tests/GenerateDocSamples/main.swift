// `swift run generate-doc-samples`: writes the test file of every document with ```swift samples
// (README.md, Sources/*/*.docc/*.md) and removes generated files whose document has none left.
import DocSampleGenerator
import Foundation

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
do {
    let files = try DocSampleGenerator.generatedFiles(root: root)
    let fileManager = FileManager.default
    for directory in DocSampleGenerator.outputDirectories {
        let url = root.appendingPathComponent(directory)
        try fileManager.createDirectory(at: url, withIntermediateDirectories: true)
        for name in try fileManager.contentsOfDirectory(atPath: url.path) where files["\(directory)/\(name)"] == nil {
            try fileManager.removeItem(at: url.appendingPathComponent(name))
            print("removed \(directory)/\(name)")
        }
    }
    for (path, contents) in files.sorted(by: { $0.key < $1.key }) {
        let url = root.appendingPathComponent(path)
        if (try? String(contentsOf: url, encoding: .utf8)) == contents { continue }
        try contents.write(to: url, atomically: true, encoding: .utf8)
        print("wrote \(path)")
    }
    print("\(files.count) documents with samples, all up to date")
} catch {
    FileHandle.standardError.write(Data("generate-doc-samples: \(error)\n".utf8))
    exit(1)
}
