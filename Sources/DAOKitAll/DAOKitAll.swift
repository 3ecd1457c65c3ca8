// One import for everything DAOKit ships, for apps that want it: `import DAOKitAll` instead of
// `import DAOKit` plus one import per back end. It links SQLite like `DAOKitSQLite` does; an app
// that must build without SQLite imports `DAOKit` and the back ends it uses instead.
@_exported import DAOKit
@_exported import DAOKitFileStore
@_exported import DAOKitSQL
@_exported import DAOKitSQLite
