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
    ip link set "$(veth "$ns")" master "$BR"
    ip link set "$(veth "$ns")" up
    printf '           %-9s %-11s eth0 <-> %s on %s\n' "$ns" "${ADDR[$ns]}" "$(veth "$ns")" "$BR"
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
