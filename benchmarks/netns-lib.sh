#!/bin/bash
# Hosts as Linux network namespaces on one bridge, shared by netns-cluster.sh and durability.sh --netns
# (issue 31). Sourced, not run. The sourcing script sets, before calling any function here:
#   NAMESPACES  every namespace it may make, e.g. (hr-root1 hr-leaf1 hr-leaf2 hr-leaf3)
#   ADDR        an associative array: namespace -> its address on $NET.0/24
#   BR, NET     the bridge's name and the first three octets of the network (e.g. hrbr0, 10.77.0)
#   OUT         the run's folder: in_host logs to $OUT/logs/<name>.log
#   say         a function that prints a progress line
# Each namespace gets eth0 (its address), joined to the bridge by a veth whose bridge side is
# $(veth <namespace>) (hrv-<host>): 'ip link set $(veth hr-leaf1) down' cuts that host off.
# In each namespace the local routing table is looked up at preference 100 instead of 0, so that a
# partition's rules at preference 10 ('ip -n <ns> rule add pref 10 from <address>/32 blackhole',
# the durability checker's partition nemesis) drop what comes from another group before it is
# delivered: silently, as iptables DROP would (this machine has neither iptables nor nft, and its
# kernel no tc actions). netns_heal lifts them all; deleting a namespace deletes its rules too.
#
# netns_cluster_up (below) starts a cluster with ZooKeeper over the hosts: durability.sh --netns
# and root-failover.sh use it.

ns_exists() { [[ -e "/var/run/netns/$1" ]] || ip netns list 2>/dev/null | grep -qE "^$1( |\$)"; }
link_exists() { ip link show "$1" >/dev/null 2>&1; }
veth() { echo "hrv-${1#hr-}"; }          # the bridge side of a host's link
ns_pids() { if ns_exists "$1"; then ip netns pids "$1" 2>/dev/null || true; fi; }

# Succeeds when none of the names netns_up would make exists; else prints which one and fails.
netns_names_free() {
  local ns
  for ns in "${NAMESPACES[@]}"; do
    ns_exists "$ns" && { echo "namespace $ns exists already"; return 1; }
    link_exists "$(veth "$ns")" && { echo "link $(veth "$ns") exists already"; return 1; }
  done
  link_exists "$BR" && { echo "bridge $BR exists already"; return 1; }
  return 0
}

# The bridge ($NET.1/24 in the default namespace) and one namespace per host, joined to it.
netns_up() {
  local ns
  ip link add "$BR" type bridge
  ip addr add "$NET.1/24" dev "$BR"
  ip link set "$BR" up
  for ns in "${NAMESPACES[@]}"; do
    ip netns add "$ns"
    ip link add "$(veth "$ns")" type veth peer name "hrp-${ns#hr-}"
    ip link set "hrp-${ns#hr-}" netns "$ns"
    ip -n "$ns" link set "hrp-${ns#hr-}" name eth0
    ip -n "$ns" addr add "${ADDR[$ns]}/24" dev eth0
    ip -n "$ns" link set lo up
    ip -n "$ns" link set eth0 up
    ip -n "$ns" rule add pref 100 lookup local   # then the partition rules (pref 10) come first
    ip -n "$ns" rule del pref 0 lookup local
    ip link set "$(veth "$ns")" master "$BR"
    ip link set "$(veth "$ns")" up
    printf '           %-9s %-11s eth0 <-> %s on %s\n' "$ns" "${ADDR[$ns]}" "$(veth "$ns")" "$BR"
  done
}

# Ends every fault on the network: every host's link up, every partition rule (pref 10) deleted.
# The exit traps call it before netns_teardown, which would delete them with the namespaces anyway.
netns_heal() {
  local ns
  for ns in "${NAMESPACES[@]}"; do
    if link_exists "$(veth "$ns")"; then ip link set "$(veth "$ns")" up 2>/dev/null || true; fi
    if ns_exists "$ns"; then
      while ip -n "$ns" rule del pref 10 2>/dev/null; do :; done
    fi
  done
}

# Kills every process in our namespaces (resumed first: a stopped process ignores SIGTERM until
# continued), then deletes the namespaces, veths and the bridge. Only names the caller makes.
netns_teardown() {
  local ns pids=() p deadline
  for ns in "${NAMESPACES[@]}"; do
    for p in $(ns_pids "$ns"); do pids+=("$p"); done
  done
  if [[ ${#pids[@]} -gt 0 ]]; then
    say "stopping ${#pids[@]} processes in the hr-* namespaces"
    kill -CONT "${pids[@]}" 2>/dev/null || true
    kill -TERM "${pids[@]}" 2>/dev/null || true
    deadline=$((SECONDS + 10))
    while ((SECONDS < deadline)); do
      local alive=0
      for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
      ((alive)) || break
      sleep 0.2
    done
    kill -KILL "${pids[@]}" 2>/dev/null || true
  fi
  for ns in "${NAMESPACES[@]}"; do
    ns_exists "$ns" && { ip netns del "$ns" 2>/dev/null || echo "warning: could not delete namespace $ns" >&2; }
    if link_exists "$(veth "$ns")"; then ip link del "$(veth "$ns")" 2>/dev/null || true; fi
  done
  if link_exists "$BR"; then ip link del "$BR" || echo "warning: could not delete bridge $BR" >&2; fi
  say "torn down: no hr-* namespace, veth or bridge left"
}

# A process in host $1, logging to $OUT/logs/$2.log; setsid keeps a terminal's Ctrl-C for the
# caller, whose trap stops the hosts' processes itself. Its pid (the same through setsid, 'ip netns
# exec' and the launcher, which all exec) is in $IN_HOST_PID.
in_host() {
  local ns="$1" name="$2"; shift 2
  setsid ip netns exec "$ns" "$@" >>"$OUT/logs/$name.log" 2>&1 </dev/null &
  IN_HOST_PID=$!
  disown "$IN_HOST_PID"   # the trap stops it through its namespace; and bash says nothing when a fault kills it
}

# ---- a cluster with ZooKeeper over the hosts -----------------------------------------------------
# ZooKeeper and root 1 on hr-root1, root 2 (when ROOTS is 2) on hr-root2, leaf N (0-based: the roots'
# numbering of --leaves, the pid files' names) on hr-leaf<N+1>; every root over the same leaves and
# ZooKeeper, with the same write and admin tokens. Each process is started here with 'ip netns exec';
# leaves and roots through scripts written to $RUN, run/start-leaf.sh N and run/start-root.sh N,
# which the durability checker's nemeses use to start a killed one again exactly so: each returns
# once its process serves (a leaf: listens and has joined ZooKeeper; a root: /ready answers 200).
# Pid files: $RUN/zk.pid, leaf-N.pid, root-N.pid (N from 1); logs: $RUN/zk.log, leaf-N.log, root-N.log.
# Besides the library's variables (and netns_up having run), the caller sets:
#   HERE RUN JAVA_HOME   the checkout, the run folder, the JDK every namespace uses
#   INDEX_DIR            the index every leaf and root serves
#   LEAVES ROOTS REPLICAS  leaf hosts (2|3), roots (1|2), copies of each partition
#   WRITE_TOKEN ADMIN_TOKEN  (written to $RUN/write-token and $RUN/admin-token, only root reads them)
#   LEAF_ARGS            an array of extra leaf arguments (may be empty)
#   ROOT_PORT LEAF_PORT LEAF_HTTP ZK_PORT
# It sets ROOT_URLS (root 1's first) and ZK_ADDR. On failure it prints why and returns 1.
netns_cluster_up() {
  local i leaf_hosts=() leaf_addrs=() root_hosts=() starting=()
  ZK_ADDR="${ADDR[hr-root1]}:$ZK_PORT"
  for i in $(seq 1 "${LEAVES:?}"); do leaf_hosts+=("${ADDR[hr-leaf$i]}"); leaf_addrs+=("${ADDR[hr-leaf$i]}:$LEAF_PORT"); done
  root_hosts=("${ADDR[hr-root1]}")
  [[ "${ROOTS:?}" != 2 ]] || root_hosts+=("${ADDR[hr-root2]}")
  ROOT_URLS=()
  for i in "${root_hosts[@]}"; do ROOT_URLS+=("http://$i:$ROOT_PORT"); done
  mkdir -p "$RUN/terms"
  (umask 077; head -c 32 /dev/urandom | base64 | tr -d '/+=\n' >"$RUN/cluster-secret"
    printf '%s' "$WRITE_TOKEN" >"$RUN/write-token"; printf '%s' "$ADMIN_TOKEN" >"$RUN/admin-token")
  export HEDGEROW_ROOT_JVM="${HEDGEROW_ROOT_JVM:--XX:+UseParallelGC -Xmx512m}"
  export HEDGEROW_LEAF_JVM="${HEDGEROW_LEAF_JVM:--XX:+UseParallelGC -Xmx512m}"

  # shellcheck disable=SC2016 # the $-expressions are the written script's, expanded when it runs
  {
    echo '#!/bin/bash'
    echo '# Starts leaf N (0-based) of this cluster in its namespace; written by benchmarks/netns-lib.sh.'
    echo 'set -euo pipefail'
    printf 'n="$1"; addrs=(%s)\n' "${leaf_hosts[*]}"
    echo '[[ "$n" =~ ^[0-9]+$ && "$n" -lt ${#addrs[@]} ]] || { echo "leaf: '"'"'$n'"'"' (expected: 0..$((${#addrs[@]} - 1)))" >&2; exit 2; }'
    printf 'cd %q\n' "$HERE"
    printf 'export HEDGEROW_BUILD=never JAVA_HOME=%q HEDGEROW_LEAF_JVM=%q\n' "$JAVA_HOME" "$HEDGEROW_LEAF_JVM"
    printf 'run=%q\n' "$RUN"
    echo 'rm -f "$run/leaf-$n.port"'
    printf 'setsid ip netns exec "hr-leaf$((n + 1))" ./hedgerow leaf --index %q --host "${addrs[n]}" --port %d' "$INDEX_DIR" "$LEAF_PORT"
    printf ' --http-port %d --port-file "$run/leaf-$n.port" --cluster-secret-file "$run/cluster-secret" --node-id "$n"' "$LEAF_HTTP"
    printf ' --warmup 0s --workers 1 --zk %q --zk-cluster durability --term-log "$run/terms/leaf-$n.log"' "$ZK_ADDR"
    for i in ${LEAF_ARGS[@]+"${LEAF_ARGS[@]}"}; do printf ' %q' "$i"; done
    echo ' >>"$run/leaf-$n.log" 2>&1 </dev/null &'
    echo 'pid=$!; echo "$pid" >"$run/leaf-$n.pid"'
    # The leaf writes its port file once it listens and has joined ZooKeeper: a restart that
    # returns sooner lets the next fault cut it off from ZooKeeper while it starts, and a leaf
    # that cannot reach ZooKeeper within 3 s of its start exits (seed 21's first run).
    echo 'for _ in $(seq 1 90); do'
    echo '  [[ -f "$run/leaf-$n.port" ]] && exit 0'
    echo '  kill -0 "$pid" 2>/dev/null || { echo "leaf $n (pid $pid) exited while starting; its log: $run/leaf-$n.log" >&2; exit 1; }'
    echo '  sleep 1'
    echo 'done'
    echo 'echo "leaf $n (pid $pid) did not listen within 90 s; its log: $run/leaf-$n.log" >&2; exit 1'
  } >"$RUN/start-leaf.sh"
  # Root N (from 1) on host hr-root<N>: alone, without its leaves (they are processes of their own),
  # so the root nemesis restarts one root while the leaves, ZooKeeper and the other root run on.
  # shellcheck disable=SC2016
  {
    echo '#!/bin/bash'
    echo '# Starts root N (1..) of this cluster in its namespace and returns once it is ready; written by benchmarks/netns-lib.sh.'
    echo 'set -euo pipefail'
    printf 'n="$1"; addrs=(%s)\n' "${root_hosts[*]}"
    echo '[[ "$n" =~ ^[0-9]+$ && "$n" -ge 1 && "$n" -le ${#addrs[@]} ]] || { echo "root: '"'"'$n'"'"' (expected: 1..${#addrs[@]})" >&2; exit 2; }'
    printf 'cd %q\n' "$HERE"
    printf 'export HEDGEROW_BUILD=never JAVA_HOME=%q HEDGEROW_ROOT_JVM=%q\n' "$JAVA_HOME" "$HEDGEROW_ROOT_JVM"
    printf 'run=%q\n' "$RUN"
    echo 'addr="${addrs[n - 1]}"'
    printf '%s' 'HEDGEROW_WRITE_TOKEN="$(cat "$run/write-token")" HEDGEROW_ADMIN_TOKEN="$(cat "$run/admin-token")"'
    printf ' setsid ip netns exec "hr-root$n" ./hedgerow root --leaves %q --host "$addr" --port %d' "$(IFS=,; echo "${leaf_addrs[*]}")" "$ROOT_PORT"
    printf ' --index %q --replicas %d --warmup 0s --cluster-secret-file "$run/cluster-secret" --zk %q --zk-cluster durability' \
      "$INDEX_DIR" "$REPLICAS" "$ZK_ADDR"
    echo ' >>"$run/root-$n.log" 2>&1 </dev/null &'
    echo 'pid=$!; echo "$pid" >"$run/root-$n.pid"'
    echo 'for waited in $(seq 1 300); do'
    printf '  [[ "$(curl -s -o /dev/null -m 2 -w %%{http_code} "http://$addr:%d/ready" || true)" == 200 ]] && exit 0\n' "$ROOT_PORT"
    echo '  kill -0 "$pid" 2>/dev/null || { echo "root $n (pid $pid) exited while starting; its log: $run/root-$n.log" >&2; exit 1; }'
    echo '  sleep 1'
    echo 'done'
    echo 'echo "root $n (pid $pid) was not ready within $waited s; its log: $run/root-$n.log" >&2; exit 1'
  } >"$RUN/start-root.sh"
  chmod +x "$RUN/start-leaf.sh" "$RUN/start-root.sh"

  say "ZooKeeper in hr-root1: $ZK_ADDR (data in $RUN/zk)"
  in_host hr-root1 zk ./hedgerow zk --host "${ADDR[hr-root1]}" --port "$ZK_PORT" --data-dir "$RUN/zk" --port-file "$RUN/zk.port"
  echo "$IN_HOST_PID" >"$RUN/zk.pid"
  for i in $(seq 1 120); do [[ -f "$RUN/zk.port" ]] && break; kill -0 "$IN_HOST_PID" 2>/dev/null || break; sleep 1; done
  [[ -f "$RUN/zk.port" ]] || { tail -n 20 "$RUN/zk.log" >&2; echo "error: ZooKeeper did not listen" >&2; return 1; }

  for i in $(seq 0 $((LEAVES - 1))); do
    say "Leaf $i in hr-leaf$((i + 1)): ${leaf_addrs[i]}"
    "$RUN/start-leaf.sh" "$i" & starting+=("$!")   # each waits for its leaf to listen
  done
  for i in $(seq 0 $((LEAVES - 1))); do
    wait "${starting[i]}" || { tail -n 20 "$RUN/leaf-$i.log" >&2; echo "error: leaf $i did not start" >&2; return 1; }
  done
  starting=()
  for i in $(seq 1 "${#root_hosts[@]}"); do
    say "Root $i in hr-root$i: ${ROOT_URLS[i - 1]} over --leaves $(IFS=,; echo "${leaf_addrs[*]}"), --zk $ZK_ADDR"
    "$RUN/start-root.sh" "$i" & starting+=("$!")   # each waits for its root to be ready
  done
  for i in $(seq 1 "${#root_hosts[@]}"); do
    wait "${starting[i - 1]}" || { tail -n 20 "$RUN/root-$i.log" >&2; echo "error: root $i was not ready" >&2; return 1; }
  done
}
