#!/usr/bin/env bash
# slurm.sh - a Slurm cluster of two nodes on this machine: Debian's slurm-wlm
# (slurmctld, one slurmd per host, munge for authentication) started inside
# the two test hosts of scripts/hosts.sh.  Sourced (bash) after hosts.sh and
# hosts_up, by tests/multinode/mn_test.sh; run directly it is a sandbox:
#
#   scripts/slurm.sh [COMMAND...]   (root) make the hosts, start Slurm, run
#                    COMMAND (default: an interactive shell) in host A with
#                    SLURM_CONF set, then tear everything down
#
# Functions (sourced):
#   slurm_check      0, or 77 with SLURM_ERR set: not root, a daemon or the
#                    PMIx plugin is missing (the packages to install)
#   slurm_up DIR     munged (socket, key, log in DIR/munge), slurmctld in host
#                    A and a slurmd in each host, nodes "hosta" (10.77.0.1) and
#                    "hostb" (10.77.0.2) of CPUS_PER_NODE (default 4) CPUs each,
#                    partition "test"; config, state, spool, logs and the
#                    job-completion record (DIR/jobcomp.txt) all in DIR
#                    (a link to /var/tmp/symheap-slurm.* when DIR is too
#                    long for the daemons' unix socket paths).
#                    Returns once both nodes are idle, or non-zero with SLURM_ERR
#   slurm_in_a CMD   run a Slurm command (srun, sbatch, scontrol ...) in host A
#   slurm_down       stop the daemons (SIGTERM, up to 5 s, then SIGKILL), wait
#                    for them; hosts_down then removes the namespaces
#
# Each daemon runs in its host's network namespace and a UTS namespace of its
# own (hostname hosta or hostb, so slurmd finds its node by name and the PEs
# see different host names, as on two machines), in a mount namespace with a
# private /tmp (DIR/tmp.hosta, tmp.hostb: Slurm's PMIx plugin keeps per-step
# files there, under the same name on both nodes) and a sysfs of the host's
# network namespace (UCX lists the network devices there), the machine's
# /sys/fs/cgroup kept under it.  munged runs in host A; its socket is a file,
# so both hosts' daemons reach it.  Everything runs in the foreground as a child
# of this shell, so a killed test takes the daemons with it (and hosts_down
# kills whatever is left in the namespaces).

SLURM_DIR=""
SLURM_ERR=""
SLURM_PIDS=()
SLURM_CONF_FILE=""
SLURM_MUNGE_SOCK=""
SLURM_SHORT=""
SLURM_SHARE=${SLURM_SHARE:-}

slurm_check() {
    local c
    [ "$(id -u)" = 0 ] || { SLURM_ERR="not root: the Slurm daemons and the network namespaces need root"; return 77; }
    for c in munged slurmctld slurmd srun sbatch scontrol; do
        command -v "$c" >/dev/null ||
            { SLURM_ERR="no $c (Debian: apt-get install slurmctld slurmd slurm-client munge)"; return 77; }
    done
    local plug
    plug=$(ls /usr/lib/*/slurm-wlm/mpi_pmix.so /usr/lib/slurm/mpi_pmix.so /usr/lib64/slurm/mpi_pmix.so \
           2>/dev/null | head -n1)
    [ -n "$plug" ] || { SLURM_ERR="Slurm's PMIx plugin (mpi_pmix.so) is missing (Debian: apt-get install slurm-wlm-basic-plugins)"; return 77; }
    # Debian's plugin dlopens pmix2/lib/libpmix.so, which only libpmix-dev has
    case $plug in
    /usr/lib/*/slurm-wlm/*)
        [ -e "${plug%/slurm-wlm/*}/pmix2/lib/libpmix.so" ] ||
            { SLURM_ERR="${plug%/slurm-wlm/*}/pmix2/lib/libpmix.so is missing: Slurm's PMIx plugin loads it (Debian: apt-get install libpmix-dev)"; return 77; } ;;
    esac
    return 0
}

# slurm_spawn NAME HOST NS CMD...: CMD in the foreground, in namespace NS
# with hostname HOST and a private /tmp; logs to DIR/NAME.out.  Each path of
# SLURM_SHARE (space-separated: the build tree, the test's work directory)
# that lies under /tmp stays visible there: its first directory below /tmp
# is bind-mounted into the private /tmp before that replaces /tmp.
slurm_spawn() {
    local name=$1 host=$2 ns=$3 p c keep=""
    shift 3
    mkdir -p "$SLURM_DIR/tmp.$host"
    chmod 1777 "$SLURM_DIR/tmp.$host"
    for p in $SLURM_SHARE; do
        case $p in /tmp/?*) ;; *) continue ;; esac
        c=${p#/tmp/}
        c=${c%%/*}
        case " $keep " in *" $c "*) continue ;; esac
        keep="$keep $c"
        mkdir -p "$SLURM_DIR/tmp.$host/$c"
    done
    # A private mount namespace: /tmp the host's own; /sys a sysfs of the
    # host's network namespace (UCX finds symv0 there, as under `ip netns
    # exec`) with the machine's /sys/fs/cgroup kept under it (slurmd 22.05
    # will not start without its cgroup plugin).
    mkdir -p "$SLURM_DIR/cg.$host"
    nsenter --net="/run/netns/$ns" unshare --uts --mount -- sh -c '
        hostname "$1" && for c in $4; do mount --bind "/tmp/$c" "$2/$c" || exit 1; done &&
        mount --rbind "$2" /tmp &&
        mount --rbind /sys/fs/cgroup "$3" && mount -t sysfs sysfs /sys &&
        mount --rbind "$3" /sys/fs/cgroup && umount -l "$3" && shift 4 && exec "$@"' \
        sh "$host" "$SLURM_DIR/tmp.$host" "$SLURM_DIR/cg.$host" "$keep" "$@" >"$SLURM_DIR/$name.out" 2>&1 &
    SLURM_PIDS+=($!)
}

slurm_in_a() { ip netns exec "$HOSTS_NA" env SLURM_CONF="$SLURM_CONF_FILE" "$@"; }

slurm_up() {
    SLURM_DIR=$1
    # Unix sockets (munge's, slurmd's per step in its spool) have 108 bytes
    # for their path: a deep DIR becomes a link to a short one in /var/tmp.
    if [ ${#SLURM_DIR} -gt 48 ]; then
        SLURM_SHORT=$(mktemp -d /var/tmp/symheap-slurm.XXXXXX) || { SLURM_ERR="cannot make a directory in /var/tmp"; return 1; }
        ln -sfn "$SLURM_SHORT" "$SLURM_DIR" || { SLURM_ERR="cannot link $SLURM_DIR to $SLURM_SHORT"; return 1; }
        SLURM_DIR=$SLURM_SHORT
    fi
    local d=$SLURM_DIR cpus=${CPUS_PER_NODE:-4}
    SLURM_CONF_FILE=$d/slurm.conf
    SLURM_SHARE="${SLURM_SHARE:-} $d"
    mkdir -p "$d/munge" "$d/ctld" "$d/spool.hosta" "$d/spool.hostb" && chmod 700 "$d/munge" || { SLURM_ERR="cannot make $d"; return 1; }
    # munge: a fresh key, our own socket; --force: it runs as root here
    local sock=$d/munge/sock
    SLURM_MUNGE_SOCK=$sock
    head -c 1024 /dev/urandom >"$d/munge/munge.key" && chmod 400 "$d/munge/munge.key"
    ip netns exec "$HOSTS_NA" munged --foreground --force --socket="$sock" \
        --key-file="$d/munge/munge.key" --log-file="$d/munge/log" --pid-file="$d/munge/pid" \
        --seed-file="$d/munge/seed" >"$d/munged.out" 2>&1 &
    SLURM_PIDS+=($!)
    cat >"$SLURM_CONF_FILE" <<CONF
# written by scripts/slurm.sh: two nodes in network namespaces
ClusterName=symheap
SlurmctldHost=hosta(10.77.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$d/ctld
SlurmdSpoolDir=$d/spool.%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.%n.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$d/jobcomp.txt
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
KillWait=2
MinJobAge=600
InactiveLimit=0
MailProg=/bin/true
NodeName=hosta NodeAddr=10.77.0.1 CPUs=$cpus State=UNKNOWN
NodeName=hostb NodeAddr=10.77.0.2 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=hosta,hostb Default=YES MaxTime=INFINITE State=UP
CONF
    # read by slurmd from beside slurm.conf; without systemd (containers, CI)
    # the cgroup/v2 plugin makes its scope itself
    printf 'CgroupPlugin=autodetect\nIgnoreSystemd=yes\n' >"$d/cgroup.conf"
    for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
    [ -S "$sock" ] || { SLURM_ERR="munged did not start: $(tail -n 3 "$d/munged.out" "$d/munge/log" 2>/dev/null | tr '\n' ' ')"; return 1; }
    slurm_spawn slurmctld hosta "$HOSTS_NA" slurmctld -D -i -f "$SLURM_CONF_FILE"
    slurm_spawn slurmd.hosta hosta "$HOSTS_NA" slurmd -D -f "$SLURM_CONF_FILE"
    slurm_spawn slurmd.hostb hostb "$HOSTS_NB" slurmd -D -f "$SLURM_CONF_FILE"
    slurm_wait_idle 30 && return 0
    SLURM_ERR="the nodes are not idle after 30 s (sinfo: '$SLURM_STATES'); logs in $d: $(tail -n 2 "$d"/*.out "$d"/*.log 2>/dev/null | tr '\n' ' ' | head -c 1500)"
    return 1
}

# slurm_wait_idle SECONDS: until both nodes are idle (a job that just ended
# may hold them while it completes, and the next srun would queue behind it);
# 0, or 1 with the last states in SLURM_STATES.
slurm_wait_idle() {
    local i
    SLURM_STATES=""
    for ((i = 0; i < $1 * 10; i++)); do
        SLURM_STATES=$(slurm_in_a sinfo -h -N -o '%N %T' 2>/dev/null | sort | tr '\n' ' ')
        [ "$SLURM_STATES" = "hosta idle hostb idle " ] && return 0
        sleep 0.1
    done
    return 1
}

slurm_rm_short() {
    [ -z "$SLURM_SHORT" ] || rm -rf "$SLURM_SHORT"
    SLURM_SHORT=""
}

slurm_down() {
    local p _
    [ ${#SLURM_PIDS[@]} -gt 0 ] || { slurm_rm_short; return 0; }
    kill -TERM "${SLURM_PIDS[@]}" 2>/dev/null
    for _ in $(seq 50); do # up to 5 s for an orderly stop
        for p in "${SLURM_PIDS[@]}"; do kill -0 "$p" 2>/dev/null && break; p=""; done
        [ -z "$p" ] && break
        sleep 0.1
    done
    kill -KILL "${SLURM_PIDS[@]}" 2>/dev/null
    wait "${SLURM_PIDS[@]}" 2>/dev/null
    SLURM_PIDS=()
    slurm_rm_short
    return 0
}

# Run directly: a sandbox cluster for trying jobs by hand.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -u
    here=$(cd "$(dirname "$0")" && pwd)
    # shellcheck source=hosts.sh
    . "$here/hosts.sh"
    slurm_check || { echo "slurm.sh: $SLURM_ERR" >&2; exit 77; }
    dir=$(mktemp -d /var/tmp/symheap-slurm.XXXXXX)
    trap 'slurm_down; hosts_down; rm -rf "$dir"' EXIT
    trap 'exit 1' INT TERM HUP
    hosts_up "$dir" || { echo "slurm.sh: $HOSTS_ERR" >&2; exit 1; }
    slurm_up "$dir" || { echo "slurm.sh: $SLURM_ERR" >&2; exit 1; }
    echo "slurm.sh: nodes hosta, hostb up (SLURM_CONF=$SLURM_CONF_FILE); in host A:" >&2
    if [ $# -eq 0 ]; then set -- bash -i; fi
    slurm_in_a env UCX_TLS=tcp UCX_NET_DEVICES=symv0 "$@"
fi
