#!/usr/bin/env bash
# Lays out the binary distribution from the jars ./hedgerow built and packs it as
# target/hedgerow-<version>.tar.gz: bin/ (a launcher that needs only a Java 21+ runtime), lib/ (the
# root's and the load generator's jars, each with every dependency inside), conf/ (an example
# configuration), systemd/ (the units and their /etc/hedgerow/hedgerow.yaml), the LICENSE and a
# README. Run by './hedgerow dist' after its build; JAVA is the JDK's java the launcher found, used
# once to check the laid-out launcher runs.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
: "${JAVA:?dist.sh is run by ./hedgerow dist}"

# The parent pom has no <parent>: its first <version> is the project's.
VERSION="$(sed -n 's:^  <version>\(.*\)</version>.*:\1:p' "$HERE/pom.xml" | head -n 1)"
[[ -n "$VERSION" ]] || { echo "error: no <version> in $HERE/pom.xml" >&2; exit 1; }
NAME="hedgerow-$VERSION"
TARBALL="$HERE/target/$NAME.tar.gz"
STAGE="$(mktemp -d "${TMPDIR:-/tmp}/hedgerow-dist.XXXXXX")"
trap 'rm -rf "$STAGE"' EXIT
started=$SECONDS

step() { printf '[%s/4] %s\n' "$1" "$2"; }

step 2 "Laying out $NAME/ (bin, lib, conf, systemd)"
dir="$STAGE/$NAME"
mkdir -p "$dir/bin" "$dir/lib" "$dir/conf"
install -m 0755 "$HERE/root-server/src/dist/bin/hedgerow" "$dir/bin/hedgerow"
install -m 0644 "$HERE/root-server/src/dist/bin/java-runtime.sh" "$dir/bin/java-runtime.sh"
install -m 0644 "$HERE/root-server/target/hedgerow.jar" "$dir/lib/hedgerow.jar"
install -m 0644 "$HERE/loadgen/target/hedgerow-loadgen.jar" "$dir/lib/hedgerow-loadgen.jar"
install -m 0644 "$HERE/root-server/src/dist/conf/hedgerow.yaml" "$dir/conf/hedgerow.yaml"
install -m 0644 "$HERE/LICENSE" "$dir/LICENSE"
mkdir -p "$dir/systemd"
install -m 0644 "$HERE"/root-server/src/dist/systemd/*.service "$HERE/root-server/src/dist/systemd/hedgerow.yaml" "$dir/systemd/"
install -m 0644 "$HERE/root-server/src/dist/README.dist.md" "$dir/README.md"
commit="$(git -C "$HERE" rev-parse --short HEAD 2>/dev/null || echo unknown)"
dirty=""
[[ -z "$(git -C "$HERE" status --porcelain 2>/dev/null)" ]] || dirty=" (with uncommitted changes)"
printf 'hedgerow %s, commit %s%s, built %s\n' "$VERSION" "$commit" "$dirty" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
  >"$dir/VERSION"
for file in lib/hedgerow.jar lib/hedgerow-loadgen.jar; do
  printf '      %-26s %4s MB\n' "$file" "$(( $(stat -c %s "$dir/$file") / 1048576 ))"
done

step 3 "Checking the laid-out launcher runs the jars (bin/hedgerow config jvm, no Maven)"
# The JDK's home, so the check needs nothing from PATH.
if ! JAVA_HOME="$(dirname "$(dirname "$JAVA")")" HEDGEROW_CONFIG="$dir/conf/hedgerow.yaml" \
    "$dir/bin/hedgerow" config jvm >"$STAGE/check.log" 2>&1; then
  cat "$STAGE/check.log" >&2
  echo "error: the distribution's launcher failed (output above)" >&2
  exit 1
fi
grep -v 'Using incubator modules' "$STAGE/check.log" | sed 's/^/      /' || true

step 4 "Packing target/$NAME.tar.gz"
mkdir -p "$HERE/target"
tar -C "$STAGE" --owner=0 --group=0 --numeric-owner -czf "$TARBALL.tmp" "$NAME"
mv -f "$TARBALL.tmp" "$TARBALL"
echo "Done in $((SECONDS - started)) s: $TARBALL ($(( $(stat -c %s "$TARBALL") / 1048576 )) MB)"
echo "Install: tar -xzf target/$NAME.tar.gz -C /opt && /opt/$NAME/bin/hedgerow help (docs/deployment.md)"
