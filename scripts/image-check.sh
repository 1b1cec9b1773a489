#!/usr/bin/env bash
# Builds Dockerfile.sandbox-browser and checks the image with a real Docker engine (default seccomp, then
# the shipped profile sandbox-browser.seccomp.json, under which Chromium keeps its own sandbox):
# it serves a page through the socket, passes its health check, `docker exec ... doctor` works as
# documented, and `docker stop` ends it cleanly and soon, also right after the start. Skips (exit 0,
# with a message) where there is no Docker engine, as on CI; the entrypoint's and the doctor's
# behaviour is covered without one by tests/operators.rs.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v docker >/dev/null 2>&1 || ! docker info >/dev/null 2>&1; then
    echo "image-check: skipped: no Docker engine here" >&2
    exit 0
fi
tag=sandbox-browser:check
vol=sandbox-browser-check-$$
name=sandbox-browser-check-$$
cleanup() { docker rm -f "$name" >/dev/null 2>&1 || true; docker volume rm -f "$vol" >/dev/null 2>&1 || true; }
trap cleanup EXIT
step() { printf '%-58s' "$1"; }
ok() { echo "ok${1:+ ($1)}"; }
# wait_healthy: until the container's health check says healthy (at most 60 s), else its log and exit 1.
wait_healthy() {
    local state=starting
    for _ in $(seq 1 60); do
        state=$(docker inspect -f '{{.State.Health.Status}}' "$name")
        [ "$state" = healthy ] && return 0
        sleep 1
    done
    docker logs "$name" | tail -20
    exit 1
}

step "build"
start=$(date +%s)
DOCKER_BUILDKIT=1 docker build -q -f Dockerfile.sandbox-browser -t "$tag" . >/dev/null
ok "$(($(date +%s) - start)) s"

step "a docker stop right after the start ends it within 3 s"
docker run -d --name "$name" --shm-size=1g -v "$vol:/run/sandbox-browser" "$tag" >/dev/null
start=$(date +%s%N)
docker stop -t 10 "$name" >/dev/null
ms=$((($(date +%s%N) - start) / 1000000))
[ "$ms" -lt 3000 ] || { echo "took $ms ms (SIGTERM lost?)"; exit 1; }
docker rm "$name" >/dev/null
ok "$ms ms"

step "serves: health check healthy"
docker run -d --name "$name" --shm-size=1g -v "$vol:/run/sandbox-browser" "$tag" >/dev/null
wait_healthy
ok

step "docker exec doctor (as documented)"
docker exec "$name" sandbox-browser doctor --quick >/dev/null
ok

step "a page through the socket (browserctl in the container)"
docker exec "$name" browserctl session.start session_id=check >/dev/null
docker exec "$name" browserctl --session check page.goto url=about:blank >/dev/null
docker exec "$name" browserctl runtime.health | grep -q '"cdp_transport":"pipe"'
ok

step "docker stop: clean exit"
docker stop -t 10 "$name" >/dev/null
code=$(docker inspect -f '{{.State.ExitCode}}' "$name")
[ "$code" = 0 ] || [ "$code" = 143 ] || { echo "exit code $code"; exit 1; }
ok "exit $code"
docker rm "$name" >/dev/null

step "with the shipped seccomp profile: Chromium's own sandbox"
docker run -d --name "$name" --shm-size=1g --security-opt seccomp=sandbox-browser.seccomp.json \
    -v "$vol:/run/sandbox-browser" "$tag" >/dev/null
wait_healthy
docker exec "$name" browserctl runtime.health | grep -q '"browser_sandbox":"chromium"' \
    || { docker exec "$name" browserctl runtime.health; exit 1; }
docker stop -t 10 "$name" >/dev/null
ok
