#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL server: initdb into a temporary directory, start
# the server on a free loopback port (its socket in that directory, password authentication with
# scram-sha-256), create the test database, run the command with the connection in the
# environment, and always stop the server and delete the directory afterwards.
#
#   Integrations/Postgres/Scripts/with-throwaway-server.sh swift test --package-path Integrations/Postgres
#
# The command sees:
#   DAOKIT_PG_HOST, DAOKIT_PG_PORT, DAOKIT_PG_USER, DAOKIT_PG_PASSWORD, DAOKIT_PG_DATABASE
#   DAOKIT_PG_DATA       the data directory
#   DAOKIT_PG_CTL        a command that takes `stop` or `start` to restart the server (the restart test)
# Exits non-zero, without running the command, when the server cannot start.
set -euo pipefail

bin="${DAOKIT_PG_BIN:-}"
if [[ -z "$bin" ]]; then
    for candidate in /usr/lib/postgresql/*/bin; do
        [[ -x "$candidate/initdb" ]] && bin="$candidate"
    done
fi
if [[ -z "$bin" || ! -x "$bin/initdb" ]]; then
    echo "error: PostgreSQL server binaries (initdb, pg_ctl) not found; install them (Debian: apt-get install postgresql)" >&2
    exit 1
fi

root="$(mktemp -d /tmp/daokit-pg.XXXXXX)"
data="$root/data"
password="daokit-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
database="daokit_test"
user="daokit"

# The server refuses to run as root: when root, run it as the `postgres` user, who owns the directory.
as_server=()
if [[ "$(id -u)" == 0 ]]; then
    id postgres >/dev/null 2>&1 || { echo "error: running as root needs a 'postgres' user to run the server" >&2; exit 1; }
    chown postgres "$root"
    chmod 700 "$root"
    as_server=(runuser -u postgres --)
fi

cleanup() {
    "${as_server[@]}" "$bin/pg_ctl" -D "$data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$root"
}
trap cleanup EXIT
# A signal ends the script through `exit`, so that the EXIT trap stops the server.
trap 'exit 143' TERM
trap 'exit 130' INT

printf '%s\n' "$password" > "$root/pwfile"
[[ ${#as_server[@]} -gt 0 ]] && chown postgres "$root/pwfile"
"${as_server[@]}" "$bin/initdb" -D "$data" -U "$user" --pwfile="$root/pwfile" --auth=scram-sha-256 \
    --encoding=UTF8 --locale=C >"$root/initdb.log" 2>&1 || { cat "$root/initdb.log" >&2; exit 1; }
rm -f "$root/pwfile"

# A free port: ask the kernel for one, then give it to the server (a race with another process
# taking it in between only makes the start fail, which says so).
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"

server_options="-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$root -c max_connections=200 -c fsync=on"
ctl="${as_server[*]} $bin/pg_ctl -D $data -l $root/server.log -w -t 60 -o '$server_options'"
if ! eval "$ctl start" >/dev/null; then
    echo "error: the PostgreSQL server did not start:" >&2
    cat "$root/server.log" >&2 || true
    exit 1
fi

PGPASSWORD="$password" "$bin/psql" -h 127.0.0.1 -p "$port" -U "$user" -d postgres -qc "CREATE DATABASE $database"

export DAOKIT_PG_HOST=127.0.0.1 DAOKIT_PG_PORT="$port" DAOKIT_PG_USER="$user" DAOKIT_PG_PASSWORD="$password"
export DAOKIT_PG_DATABASE="$database" DAOKIT_PG_DATA="$data"
# `$DAOKIT_PG_CTL stop` / `$DAOKIT_PG_CTL start`: the server's own pg_ctl, with its options.
cat > "$root/ctl" <<CTL
#!/usr/bin/env bash
set -e
case "\$1" in
    stop) ${as_server[*]} $bin/pg_ctl -D $data -m fast -w stop >/dev/null ;;
    start) $ctl start >/dev/null ;;
    *) echo "usage: \$0 stop|start" >&2; exit 2 ;;
esac
CTL
chmod 755 "$root/ctl"
export DAOKIT_PG_CTL="$root/ctl"

echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (data in $data)"
status=0
"$@" || status=$?
exit "$status"
