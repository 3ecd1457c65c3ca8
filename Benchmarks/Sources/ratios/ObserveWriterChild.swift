import BenchmarkModels
import DAOKit
import DAOKitFileStore
import Foundation

/// The cross-process writer of the latency measurement: `ratios --observe-writer <directory> <n>`
/// saves the probe message n times, 150 ms apart, printing `committed <generation> <nanoseconds>`
/// (`CLOCK_MONOTONIC`) as each save returns.
enum ObserveWriterChild {
    static let flag = "--observe-writer"

    /// Child side.
    static func main(_ arguments: [String]) -> Int32 {
        guard arguments.count == 2, let writes = Int(arguments[1]) else {
            FileHandle.standardError.write(Data("usage: ratios \(flag) <directory> <writes>\n".utf8))
            return 64
        }
        do {
            let dao = BaseDao<Message, MessageEntity>(
                context: try FileStorageContext(directory: URL(fileURLWithPath: arguments[0])))
            var probe = SampleData.makeMessage(index: 1)
            for generation in 1...writes {
                usleep(150_000)
                probe.text = "\(generation)"
                try dao.persist(probe)
                let committed = MonotonicTime.nanoseconds()
                FileHandle.standardOutput.write(Data("committed \(generation) \(committed)\n".utf8))
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            return 1
        }
    }

    /// Parent side: runs the child to its end and returns each generation's commit time.
    static func run(directory: String, writes: Int) throws -> [(generation: Int, committed: UInt64)] {
        let child = Process()
        child.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = [flag, directory, "\(writes)"]
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        guard child.terminationStatus == 0 else {
            throw ObserveBenchmarkFailure("the writer exited with \(child.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[0] == "committed", let generation = Int(fields[1]),
                let time = UInt64(fields[2])
            else { return nil }
            return (generation, time)
        }
    }
}
