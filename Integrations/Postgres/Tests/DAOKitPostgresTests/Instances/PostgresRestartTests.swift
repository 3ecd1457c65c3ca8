import Foundation
import Testing

/// A server restart in the middle of a workload. It stops its server, so it runs on a server of
/// its own: the writer child runs through `with-throwaway-server.sh`, which starts one for it,
/// and so the other suites, which share the test run's server, keep theirs.
@Suite("Postgres restart")
struct PostgresRestartTests {
    @Test func batchesAcrossARestartAreWholeOrAbsentAndWritingResumes() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scripts/with-throwaway-server.sh")
        _ = try TestServer.variable("DAOKIT_PG_HOST")  // run through the script, as every test here
        let writer = try WriterProcess.running(script: script, arguments: [WriterProcess.executable().path, "public", "restart", "40"])
        let result = writer.finish()
        #expect(result.succeeded, "\(result.line)")
        let values = WriterProcess.values(in: result.line)
        #expect(values["committed"] == 40, "\(result.line)")
        #expect((values["afterRestart"] ?? 0) > 0, "the context reconnected after the restart: \(result.line)")
        #expect(values["torn"] == 0, "no batch half applied: \(result.line)")
        #expect(values["lost"] == 0, "every batch whose save returned is stored: \(result.line)")
    }
}
