// The system SQLite: libsqlite3-dev on Linux (found with pkg-config), the SDK's on Apple platforms.
#include <sqlite3.h>
