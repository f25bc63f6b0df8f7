#!/usr/bin/env bash
# The system programs the test suite drives for real: PostgreSQL (durable runs on DBOS), Chromium (the trace
# viewer's browser tests), bubblewrap and socat (the shell sandbox and its network bridge), and curl and python3
# (the sandbox's escape attempts use them as a model's commands would), and unshare and ip (the MCP conformance
# suite runs in a network namespace that has only loopback), tmux (the interactive CLI driven as a person would,
# keys sent to a real terminal) and git (checkpoints must leave a repository as it was).
# Installs Debian's packages when one is missing; does nothing when all are present.
# Needs root (or sudo) only when something has to be installed. Starts no service: the tests start their own
# throwaway Postgres cluster and their own headless browser, and stop them.
set -euo pipefail

missing=()
if ! compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null && ! command -v initdb >/dev/null; then
  missing+=(postgresql)
fi
if ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null; then
  missing+=(chromium)
fi
for program in bwrap:bubblewrap socat:socat curl:curl python3:python3 unshare:util-linux ip:iproute2 tmux:tmux git:git; do
  if ! command -v "${program%%:*}" >/dev/null && [ ! -x "/usr/sbin/${program%%:*}" ] && [ ! -x "/sbin/${program%%:*}" ]; then
    missing+=("${program##*:}")
  fi
done
if [ "${#missing[@]}" -eq 0 ]; then
  echo "test dependencies: PostgreSQL, Chromium, bubblewrap, socat, curl, python3, unshare, ip, tmux and git are installed"
  exit 0
fi

echo "test dependencies: installing ${missing[*]} from Debian's packages"
run_as_root=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then
    run_as_root=(sudo)
  else
    echo "test dependencies: ${missing[*]} missing and not root; install them with: apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
"${run_as_root[@]}" apt-get update -qq
# policy-rc.d keeps the package from starting (and enabling) a system-wide Postgres service.
"${run_as_root[@]}" sh -c 'printf "#!/bin/sh\nexit 101\n" > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d'
trap '"${run_as_root[@]}" rm -f /usr/sbin/policy-rc.d' EXIT
"${run_as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
