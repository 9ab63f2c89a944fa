# Shared by scripts/run, scripts/test and bench/run. Source it; it defines
# functions only (and ROOT).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

CA_PACKAGES=(build-essential cmake pkg-config libfcgi-dev libcjson-dev libpq-dev libsodium-dev
  libcurl4-openssl-dev libgtest-dev nginx postgresql spawn-fcgi wrk curl ccache python3-aiosmtpd)

CA_GROUPS=(auth tenants team-members categories products orders announcements webhooks)

say() { printf '%s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Installs the Debian packages that are missing (one apt run, only when
# needed): the arguments, or CA_PACKAGES when there are none.
install_deps() {
  local missing=() wanted=("$@")
  if [ ${#wanted[@]} -eq 0 ]; then
    wanted=("${CA_PACKAGES[@]}")
    # npm fetches Redoc once at build time (scripts/fetch-redoc); any npm on
    # PATH will do (Debian's package, or a Node.js distribution's).
    command -v npm >/dev/null || wanted+=(npm)
  fi
  for p in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" = 0 ] || die "missing packages (${missing[*]}); run as root or install them"
  say "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# build DIR BUILD_TYPE [extra cmake args...]
# With ccache installed every build goes through it (paths relative to the
# checkout, so another clone on the same machine hits the same cache): CI's
# five builds (Debug, ASan, Release for the package and the bench, fuzz)
# then cost seconds when the sources did not change.
build() {
  local dir=$1 type=$2
  shift 2
  cmake -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE="$type" -DCA_SQL_DIR="$ROOT/sql" \
    $(ccache_launcher) "$@" >/dev/null
  CCACHE_BASEDIR=$ROOT cmake --build "$dir" -j"$(nproc)" >&2
}
ccache_launcher() {
  command -v ccache >/dev/null && echo "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
  return 0
}

pg_bin() { echo "/usr/lib/postgresql/15/bin/$1"; }
pg_bin_config_path() { pg_bin pg_config; }
pg_bin_config() { "$(pg_bin_config_path)" "$@"; }

# True when Citus 13.2 is installed into PostgreSQL 15 (scripts/install-citus).
citus_installed() {
  [ -f "$(pg_bin_config --pkglibdir)/citus.so" ] &&
    grep -q "^default_version = '13\.2-" "$(pg_bin_config --sharedir)/extension/citus.control" 2>/dev/null
}

# Waits until URL answers 200 or the timeout (seconds) passes.
wait_http() {
  local url=$1 timeout=${2:-30} i
  for ((i = 0; i < timeout * 10; i++)); do
    curl -fsS -o /dev/null "$url" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
