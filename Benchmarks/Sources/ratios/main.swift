import Foundation

// Interleaved ratio measurements for DAOKit; see `RatioCommand` for what happens, in order.
//
//     swift run -c release --package-path Benchmarks ratios
let status = RatioCommand(arguments: Array(CommandLine.arguments.dropFirst())).run()
exit(status.rawValue)
