import DAOKit
import DAOKitFileStore
import DAOKitTestSupport
import DAOKitTesting
import Foundation
import Testing

@Suite("FileStorageContext contract")
struct FileStorageContextContractTests {
    @Test("FileStorageContext keeps every promise", arguments: StorageContextContract.checks)
    func fileStorageContextKeepsTheContract(_ check: ContractCheck) throws {
        var directories: [FileTestDirectory] = []
        defer { directories.forEach { $0.remove() } }
        try check.run(makeContext: {
            let directory = FileTestDirectory()
            directories.append(directory)
            return try FileStorageContext(directory: directory.url)
        })
    }

    @Test("a property-list FileStorageContext keeps every promise", arguments: StorageContextContract.checks)
    func propertyListFileStorageContextKeepsTheContract(_ check: ContractCheck) throws {
        var directories: [FileTestDirectory] = []
        defer { directories.forEach { $0.remove() } }
        try check.run(makeContext: {
            let directory = FileTestDirectory()
            directories.append(directory)
            return try FileStorageContext(directory: directory.url, format: .propertyList)
        })
    }
}
