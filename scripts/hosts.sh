# hosts.sh - two "hosts" on this machine for multi-node runs: network
# namespaces joined by a veth pair, started into by Open MPI's mpirun through
# an rsh agent.  Sourced (bash) by tests/multinode/mn_test.sh and
# bench/hosts.sh; needs root and iproute2.
#
#   hosts_up DIR     make namespaces $HOSTS_NA, $HOSTS_NB (unique names), a
#                    veth pair renamed symv0 in both, addresses 10.77.0.1/24 and
#                    10.77.0.2/24 (they exist only inside the namespaces, so
#                    concurrent runs do not clash), and the rsh agent DIR/rsh;
#                    returns non-zero with HOSTS_ERR set when it cannot
#   hosts_mpi K      sets the array HOSTS_MPI: mpirun, to be run in host A
#                    (`ip netns exec $HOSTS_NA "${HOSTS_MPI[@]}" ...`), with K
#                    PEs on each host, the agent, Open MPI's own traffic on
#                    the veth, and UCX over TCP on symv0 for the PEs
#   hosts_pids       the processes in either namespace
#   hosts_down       kill what runs in them, delete them and the veth pair
#   hosts_reap       (called by hosts_up) the same for the namespaces of runs
#                    killed before their hosts_down (creator pid gone)
#
# mpirun, run in host A with --host 10.77.0.1:K,10.77.0.2:K, starts its own
# host's PEs itself (it owns that address) and reaches the second through the
# agent, which runs Open MPI's daemon under `ip netns exec $HOSTS_NB`.

HOSTS_ID=$$-$RANDOM
HOSTS_NA=symheap-mn-$HOSTS_ID-a
HOSTS_NB=symheap-mn-$HOSTS_ID-b
HOSTS_VA=smv$$a
HOSTS_VB=smv$$b
HOSTS_DIR=""
HOSTS_ERR=""

# Namespaces of runs that were killed before they could clean up (SIGKILL,
# e.g. a test timeout): their creator (the pid in the name) is gone.  What
# still runs in them is killed, then they are deleted.
hosts_reap() {
    local ns pid
    for ns in $(ip netns list 2>/dev/null | sed -n 's/^\(symheap-mn-[0-9]*-[0-9]*-[ab]\)\b.*/\1/p'); do
        pid=${ns#symheap-mn-}
        pid=${pid%%-*}
        kill -0 "$pid" 2>/dev/null && continue
        ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
        ip netns del "$ns" 2>/dev/null
    done
}

hosts_up() {
    HOSTS_DIR=$1
    local na=$HOSTS_NA nb=$HOSTS_NB ns
    hosts_reap
    if ! ip netns add "$na" 2>"$HOSTS_DIR/ns.err"; then
        HOSTS_ERR="ip netns add refused: $(cat "$HOSTS_DIR/ns.err")"
        return 77
    fi
    if ! { ip netns add "$nb" && ip link add "$HOSTS_VA" type veth peer name "$HOSTS_VB" &&
           ip link set "$HOSTS_VA" netns "$na" && ip link set "$HOSTS_VB" netns "$nb" &&
           ip -n "$na" link set "$HOSTS_VA" name symv0 && ip -n "$nb" link set "$HOSTS_VB" name symv0 &&
           ip -n "$na" addr add 10.77.0.1/24 dev symv0 && ip -n "$nb" addr add 10.77.0.2/24 dev symv0; }; then
        HOSTS_ERR="cannot set up the namespaces"
        return 1
    fi
    for ns in "$na" "$nb"; do
        ip -n "$ns" link set lo up && ip -n "$ns" link set symv0 up ||
            { HOSTS_ERR="cannot bring up the links in $ns"; return 1; }
    done
    # reachable: a TCP connection to a closed port is refused (no ping needed)
    local probe
    probe=$(ip netns exec "$na" timeout 5 bash -c 'exec 3<>/dev/tcp/10.77.0.2/1' 2>&1)
    case $probe in
    *refused*) ;;
    *) HOSTS_ERR="host A cannot reach host B over the veth: $probe"; return 1 ;;
    esac
    # The rsh agent: mpirun calls it as `rsh HOST COMMAND...`.
    cat >"$HOSTS_DIR/rsh" <<AGENT
#!/bin/sh
host=\$1
shift
case \$host in
10.77.0.1) ns=$na ;;
10.77.0.2) ns=$nb ;;
*) echo "rsh agent: unknown host \$host" >&2; exit 255 ;;
esac
exec ip netns exec \$ns sh -c "\$*"
AGENT
    chmod +x "$HOSTS_DIR/rsh"
}

hosts_mpi() {
    local k=$1
    HOSTS_MPI=("${MPIRUN:-mpirun}" --allow-run-as-root --oversubscribe
               --mca plm_rsh_agent "$HOSTS_DIR/rsh"
               --mca oob_tcp_if_include 10.77.0.0/24 --mca btl_tcp_if_include 10.77.0.0/24
               --host "10.77.0.1:$k,10.77.0.2:$k" -np $((2 * k))
               -x UCX_TLS=tcp -x UCX_NET_DEVICES=symv0)
}

hosts_pids() { ip netns pids "$HOSTS_NA" 2>/dev/null; ip netns pids "$HOSTS_NB" 2>/dev/null; }

hosts_down() {
    local ns
    for ns in "$HOSTS_NA" "$HOSTS_NB"; do
        ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
        ip netns del "$ns" 2>/dev/null
    done
    ip link del "$HOSTS_VA" 2>/dev/null
    return 0
}
