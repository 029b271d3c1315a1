#!/bin/sh
# Upfleet agent installer, served by the control plane at /install-agent.sh:
#   curl -fsSL __BASE_URL__/install-agent.sh | sudo sh -s -- --control-plane HOST:PORT[,HOST:PORT...] --region REGION-City --token TOKEN
# Downloads the agent executable from the same server, checks its sha256, installs it to
# /usr/local/bin/upfleet-agent, writes /etc/upfleet/agent.env (mode 600, holds the token) and a
# hardened systemd unit running as its own user, then enables and starts it.
# --dry-run downloads and verifies, then prints what it would write and run, changing nothing.
set -eu

DEFAULT_BASE_URL='__BASE_URL__'
BASE_URL="${UPFLEET_BASE_URL:-$DEFAULT_BASE_URL}"
BINARY_NAME=upfleet-agent-linux-x64
BIN_PATH=/usr/local/bin/upfleet-agent
ENV_DIR=/etc/upfleet
ENV_PATH=/etc/upfleet/agent.env
UNIT_NAME=upfleet-agent.service
UNIT_PATH=/etc/systemd/system/upfleet-agent.service
AGENT_USER=upfleet-agent

CONTROL_PLANE="" REGION="" TOKEN="" DRY_RUN=0 LOCAL_BINARY="" ALLOW_PRIVATE=""

say() { printf '%s\n' "$*"; }
die() { printf 'install-agent: %s\n' "$*" >&2; exit 1; }
usage() {
  say "usage: install-agent.sh --control-plane HOST:PORT[,HOST:PORT...] --region REGION-City --token TOKEN [--allow-private-targets true|false] [--binary FILE] [--dry-run]"
  say "  --binary FILE   install this copy of $BINARY_NAME (no download); its sha256 is still checked against $BASE_URL"
}

while [ $# -gt 0 ]; do
  case "$1" in
    --control-plane) [ $# -ge 2 ] || die "--control-plane needs a value"; CONTROL_PLANE=$2; shift 2 ;;
    --control-plane=*) CONTROL_PLANE=${1#*=}; shift ;;
    --region) [ $# -ge 2 ] || die "--region needs a value"; REGION=$2; shift 2 ;;
    --region=*) REGION=${1#*=}; shift ;;
    --token) [ $# -ge 2 ] || die "--token needs a value"; TOKEN=$2; shift 2 ;;
    --token=*) TOKEN=${1#*=}; shift ;;
    --allow-private-targets) [ $# -ge 2 ] || die "--allow-private-targets needs a value"; ALLOW_PRIVATE=$2; shift 2 ;;
    --binary) [ $# -ge 2 ] || die "--binary needs a file"; LOCAL_BINARY=$2; shift 2 ;;
    --dry-run) DRY_RUN=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
done
[ -n "$CONTROL_PLANE" ] || { usage >&2; die "--control-plane HOST:PORT is required"; }
[ -n "$REGION" ] || { usage >&2; die "--region REGION-City is required"; }
[ -n "$TOKEN" ] || { usage >&2; die "--token is required (from 'upfleet agent token create')"; }
# Several control planes (a cluster) are one comma-separated value; the agent tries them in turn.
case "$CONTROL_PLANE" in *[!][A-Za-z0-9._:,-]*|,*|*,|*,,*) die "--control-plane takes HOST:PORT, or several separated by commas (got '$CONTROL_PLANE')" ;; esac
for v in "$REGION" "$TOKEN" "$ALLOW_PRIVATE"; do
  case "$v" in *[!][A-Za-z0-9._:/@+=-]*) die "values may only hold letters, digits and . _ : / @ + = - [ ] (got '$v')" ;; esac
done
[ "$(uname -s)" = Linux ] && [ "$(uname -m)" = x86_64 ] || die "this agent build is for Linux x86_64 (this is $(uname -s) $(uname -m))"
if [ "$DRY_RUN" = 0 ] && [ "$(id -u)" != 0 ]; then die "run as root (pipe to 'sudo sh -s -- ...'), or add --dry-run to see what it would do"; fi

fetch() { # URL FILE
  if command -v curl >/dev/null 2>&1; then curl -fsSL -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then wget -q -O "$2" "$1"
  else die "curl or wget is needed to download $1"; fi
}
sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -d' ' -f1
  elif command -v openssl >/dev/null 2>&1; then openssl dgst -sha256 -r "$1" | cut -d' ' -f1
  else die "sha256sum, shasum or openssl is needed to check the download"; fi
}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/upfleet-agent-install.XXXXXX")
trap 'rm -rf "$WORK"' EXIT INT TERM
fetch "$BASE_URL/downloads/$BINARY_NAME.sha256" "$WORK/sha256" || die "cannot download $BASE_URL/downloads/$BINARY_NAME.sha256"
WANT=$(cut -d' ' -f1 "$WORK/sha256")
case "$WANT" in *[!0-9a-f]*|"") die "the checksum file from $BASE_URL is not a sha256" ;; esac
if [ -n "$LOCAL_BINARY" ]; then
  [ -f "$LOCAL_BINARY" ] || die "no such file: $LOCAL_BINARY"
  cp "$LOCAL_BINARY" "$WORK/$BINARY_NAME"
else
  say "Downloading $BASE_URL/downloads/$BINARY_NAME"
  fetch "$BASE_URL/downloads/$BINARY_NAME" "$WORK/$BINARY_NAME" || die "cannot download $BASE_URL/downloads/$BINARY_NAME"
fi
GOT=$(sha256_of "$WORK/$BINARY_NAME")
if [ "$GOT" != "$WANT" ]; then
  die "checksum mismatch: refusing to install $BINARY_NAME (sha256 $GOT, the control plane publishes $WANT)"
fi
say "Checksum verified: sha256 $GOT"
chmod 755 "$WORK/$BINARY_NAME"

env_file() {
  say "# Upfleet agent settings (read by $UNIT_NAME). Holds the bootstrap token: keep it 0600."
  say "UPFLEET_CONTROL_PLANE=$CONTROL_PLANE"
  say "UPFLEET_REGION=$REGION"
  say "UPFLEET_TOKEN=$TOKEN"
  say "UPFLEET_DATA_DIR=/var/lib/upfleet-agent"
  if [ -n "$ALLOW_PRIVATE" ]; then say "UPFLEET_ALLOW_PRIVATE_TARGETS=$ALLOW_PRIVATE"; fi
}
unit_file() {
  cat <<UNIT
# Written by install-agent.sh from $BASE_URL. The agent dials out to the control plane; no inbound port.
[Unit]
Description=Upfleet probe agent
Wants=network-online.target
After=network-online.target

[Service]
Type=simple
User=$AGENT_USER
Group=$AGENT_USER
EnvironmentFile=$ENV_PATH
ExecStart=$BIN_PATH
KillSignal=SIGTERM
TimeoutStopSec=20
Restart=on-failure
RestartSec=5
# exit code 3: refused for good (bad token, untrusted certificate); restarting cannot help
RestartPreventExitStatus=3
StateDirectory=upfleet-agent
StateDirectoryMode=0700
CacheDirectory=upfleet-agent
CacheDirectoryMode=0700
UMask=0077
LimitNOFILE=65536
NoNewPrivileges=yes
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
RestrictSUIDSGID=yes
RestrictNamespaces=yes
RestrictRealtime=yes
LockPersonality=yes
# AF_NETLINK: getaddrinfo() asks the kernel which address families are configured
RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX AF_NETLINK
# ICMP ping checks through the system ping; the only capability kept
CapabilityBoundingSet=CAP_NET_RAW
AmbientCapabilities=CAP_NET_RAW
SystemCallArchitectures=native

[Install]
WantedBy=multi-user.target
UNIT
}

by_hand() {
  say "sudo -u $AGENT_USER sh -c 'set -a; . $ENV_PATH; set +a; UPFLEET_CACHE_DIR=/var/lib/upfleet-agent/cache exec $BIN_PATH'"
}

HAVE_SYSTEMD=0
if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then HAVE_SYSTEMD=1; fi

if [ "$DRY_RUN" = 1 ]; then
  say "Dry run: nothing is written or started."
  say "Would install the verified binary to $BIN_PATH (mode 755)"
  say "Would create the system user $AGENT_USER (no home, no login shell) unless it exists"
  say "Would write $ENV_PATH (mode 600):"
  env_file | sed 's/^/    /'
  say "Would write $UNIT_PATH (mode 644):"
  unit_file | sed 's/^/    /'
  if [ "$HAVE_SYSTEMD" = 1 ]; then
    say "Would run: systemctl daemon-reload && systemctl enable --now $UNIT_NAME"
  else
    say "systemd is not running here: would not write the unit; would make $ENV_PATH and /var/lib/upfleet-agent $AGENT_USER's and say to run by hand:"
    say "    $(by_hand)"
  fi
  exit 0
fi

install -m 755 "$WORK/$BINARY_NAME" "$BIN_PATH"
say "Installed $BIN_PATH ($("$BIN_PATH" --version))"
if ! id -u "$AGENT_USER" >/dev/null 2>&1; then
  if command -v useradd >/dev/null 2>&1; then useradd --system --no-create-home --shell /usr/sbin/nologin "$AGENT_USER"
  elif command -v adduser >/dev/null 2>&1; then adduser -S -D -H -s /sbin/nologin "$AGENT_USER"
  else die "cannot create the user $AGENT_USER (no useradd or adduser)"; fi
fi
umask 077
mkdir -p "$ENV_DIR"
env_file > "$ENV_PATH.tmp"
chmod 600 "$ENV_PATH.tmp"
mv "$ENV_PATH.tmp" "$ENV_PATH"
say "Wrote $ENV_PATH (mode 600)"
# Browser checks need a Chromium the agent can start; the agent binary does not bundle one.
if [ ! -x /usr/bin/chromium ]; then
  say "No Chromium at /usr/bin/chromium: this agent will not run browser checks. To add them: apt-get install -y chromium (Debian), or set UPFLEET_CHROMIUM_PATH in $ENV_PATH, then restart the agent."
fi
if [ "$HAVE_SYSTEMD" = 1 ]; then
  unit_file > "$UNIT_PATH"
  chmod 644 "$UNIT_PATH"
  systemctl daemon-reload
  systemctl enable --now "$UNIT_NAME"
  say "Started $UNIT_NAME: follow it with 'journalctl -u $UNIT_NAME -f'; it shows up in 'upfleet agent list'."
else
  mkdir -p /var/lib/upfleet-agent
  chown "$AGENT_USER" /var/lib/upfleet-agent
  chmod 700 /var/lib/upfleet-agent
  chown "$AGENT_USER" "$ENV_PATH"
  say "systemd is not running here, so no service was installed. Run the agent by hand (or from your init system):"
  say "    $(by_hand)"
fi
