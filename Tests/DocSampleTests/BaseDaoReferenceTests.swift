// The DAO article's table of BaseDao's members, checked against the sources: every `public` or
// `open` member declared in any file that declares or extends BaseDao (the class, its async
// overloads, observation, salvage), by its Swift name (`read(where:sortedBy:limit:offset:)`).
import Foundation
import Testing

@Suite("The DAO article lists every public member of BaseDao")
struct BaseDaoReferenceTests {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The Swift names of the public and open members declared in `source` (members are indented;
    /// the type itself is not).
    static func memberNames(in source: String) -> [String] {
        var names: [String] = []
        let members = source.replacingOccurrences(of: "\n    open ", with: "\n    public ")
        for declaration in members.components(separatedBy: "\n    public ").dropFirst() {
            let head = declaration.prefix { $0 != "{" }
            if head.hasPrefix("let ") || head.hasPrefix("var ") {
                names.append(String(head.dropFirst(4).prefix { $0.isLetter || $0.isNumber }))
            } else if head.hasPrefix("func ") || head.hasPrefix("init") {
                let signature = head.hasPrefix("func ") ? head.dropFirst(5) : head
                let name = signature.prefix { $0 != "(" && $0 != "<" }
                let parameters = signature.drop { $0 != "(" }.dropFirst().prefix { $0 != ")" }
                let labels = parameters.split(separator: ",").map { parameter in
                    String(parameter.trimmingCharacters(in: .whitespacesAndNewlines).prefix { $0 != " " && $0 != ":" })
                        + ":"
                }
                names.append("\(name)(\(labels.joined()))")
            }
        }
        return names
    }

    @Test func theArticleNamesEveryPublicMemberOfEveryFileThatDeclaresOrExtendsBaseDao() throws {
        let article = try String(
            contentsOf: root.appendingPathComponent("Sources/DAOKit/DAOKit.docc/DAOsAndSubclassing.md"), encoding: .utf8
        )
        let sources = root.appendingPathComponent("Sources/DAOKit")
        var files: [String] = []
        var names: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: sources.path)
        while let path = enumerator?.nextObject() as? String {
            guard path.hasSuffix(".swift") else { continue }
            let source = try String(contentsOf: sources.appendingPathComponent(path), encoding: .utf8)
            guard source.contains("extension BaseDao") || source.contains("class BaseDao<") else { continue }
            files.append(path)
            names.append(contentsOf: Self.memberNames(in: source))
        }
        // The class, its async overloads and its observation live in three files today; fewer means
        // the search above broke, not that the members went away.
        #expect(files.count >= 3, "found \(files)")
        #expect(
            names.contains("read(where:sortedBy:limit:offset:)") && names.contains("observeCount(where:)")
                && names.contains("awaitsAsyncContextDirectly"), "found \(names)")
        for name in Set(names) {
            #expect(article.contains("`\(name)`"), "DAOsAndSubclassing.md's table does not list BaseDao's \(name)")
        }
    }

    @Test func theNameParserReadsLabelsDefaultsAndProperties() {
        let source = """
            open class X {
                public init(context: any StorageContext, mapper: EntityMapper = EntityMapper()) {}
                open func read(
                    where predicate: Predicate<Domain>? = nil,
                    sortedBy: [SortDescriptor<Domain>] = [], limit: Int? = nil, offset: Int = 0
                ) throws -> [Domain] {}
                public func create(_ domain: sending Domain) async throws {}
                open var translatesQueries: Bool { true }
                func hidden() {}
            }
            """
        #expect(
            Self.memberNames(in: source) == [
                "init(context:mapper:)", "read(where:sortedBy:limit:offset:)", "create(_:)", "translatesQueries",
            ])
    }
}
