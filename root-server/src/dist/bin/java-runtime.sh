# shellcheck shell=bash
# shellcheck disable=SC2034 # the *_JVM arrays are read by the launchers that source this file
# Sourced by ./hedgerow (the checkout's launcher) and by bin/hedgerow (the tarball's): how both find
# Java, each role's default JVM options, and which configuration file a command reads. One copy, so
# the two launchers cannot drift apart.

java_feature_version() { # prints the feature version of the java binary $1, or nothing
  "$1" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -n 1
}

# find_java_home [javac]: prints the home of a Java 21+ (JAVA_HOME, java on PATH, /usr/lib/jvm/*,
# newest first), or fails saying what to install. With 'javac', only a JDK will do (the checkout
# builds itself); without it, a runtime is enough (the tarball compiles nothing).
find_java_home() {
  local need_javac="${1:-}" candidates=() dir version what="Java 21 or newer" example="openjdk-21-jre-headless"
  [[ -z "$need_javac" ]] || { what="a JDK 21 or newer"; example="openjdk-21-jdk"; }
  [[ -n "${JAVA_HOME:-}" ]] && candidates+=("$JAVA_HOME")
  if command -v java >/dev/null 2>&1; then
    candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")")
  fi
  for dir in $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -rV); do candidates+=("${dir%/}"); done
  for dir in "${candidates[@]}"; do
    [[ -x "$dir/bin/java" ]] || continue
    [[ -z "$need_javac" || -x "$dir/bin/javac" ]] || continue
    version="$(java_feature_version "$dir/bin/java")"
    if [[ -n "$version" && "$version" -ge 21 ]]; then
      echo "$dir"
      return 0
    fi
  done
  echo "error: Hedgerow needs $what and found none (looked at JAVA_HOME, java on PATH, /usr/lib/jvm/*)." >&2
  echo "       Install one (e.g. 'apt install $example' or Temurin 21+) or point JAVA_HOME at it." >&2
  return 1
}

# The default JVM options of each kind of process, after JVM_FLAGS. Root and leaves: the parallel
# collector, short young pauses for servers with small, steady live data. The load generator:
# headless (its reports draw PNG charts without a display) and ZGC, as G1's young pauses (10-40 ms
# on 2 cores) would land in its own measured tail while ZGC's stay far below 1 ms. The same defaults
# are in JvmOptions.DEFAULTS (root-server), which starts the leaves of a local cluster: keep the two
# alike (JvmOptionsTest reads these lines).
ROOT_JVM_DEFAULT=(-XX:+UseParallelGC -Xmx2g)
LEAF_JVM_DEFAULT=(-XX:+UseParallelGC -Xmx1g)
LOADGEN_JVM_DEFAULT=(-Djava.awt.headless=true -XX:+UseZGC -Xmx2g)
# Each role's options as the launcher resolves them: HEDGEROW_<ROLE>_JVM, else the configuration
# file's jvm.<role>, else the default; each replaces the one after it as a whole.
ROOT_JVM=("${ROOT_JVM_DEFAULT[@]}")
LEAF_JVM=("${LEAF_JVM_DEFAULT[@]}")
LOADGEN_JVM=("${LOADGEN_JVM_DEFAULT[@]}")

# config_file COMMAND ARGS...: prints the configuration file the command reads: its --config FILE
# (not index's, which names the index's own JSON configuration, nor loadgen's or aot's, which have
# none), else $HEDGEROW_CONFIG, else nothing.
config_file() {
  local command="${1:-}" previous="" arg
  shift || true
  if [[ "$command" != index && "$command" != loadgen && "$command" != aot && "$command" != none ]]; then
    for arg in "$@"; do
      [[ "$arg" == -- ]] && break
      if [[ "$previous" == --config ]]; then echo "$arg"; return 0; fi
      if [[ "$arg" == --config=* ]]; then echo "${arg#--config=}"; return 0; fi
      previous="$arg"
    done
  fi
  [[ -z "${HEDGEROW_CONFIG:-}" ]] || echo "$HEDGEROW_CONFIG"
}
