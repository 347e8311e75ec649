#!/bin/sh
# In the guest, after hb-vm-chmu.sh has made the CXL node and written the
# closed loop's configuration (/hbconf/hb.conf, one chmu source per memdev):
# `hotbridge run` killed with SIGKILL KILLS times at random points while the
# loop runs, started again each time as systemd's Restart= does (the same
# configuration, the same /run/hotbridge), all in this one boot.
#   hb-vm-crash.sh NODE PAGES HOT PHASE_S BOUND_S BACKEND KILLS
# One kill in four lands at a random time in the first 1.5 s after the
# start (the start-up: topology, the CHMU's programming, the migrator's
# set-up); the others once the daemon answers, after a random 0.3-3 s with
# a decoy set hot (hb-vmcrash, tests/vm/vm-crash.c). Checked, as TAP beside
# the workload's: every start came up; after each, the kernel held exactly
# the new daemon's DAMON state (backend auto on a stock kernel: one kdamond,
# on, one context, the one /run/hotbridge/damon-state names, not the one
# the start before had; phys: no kdamond at all);
# after the last daemon's clean stop, none and no state file.
node=$1 pages=$2 hot=$3 phase=$4 bound=$5 backend=$6 kills=$7 lastpid=
W=/tmp/crash K=/sys/kernel/mm/damon/admin/kdamonds STATE=/run/hotbridge/damon-state
mkdir -p $W
# the seed: printed, so that a failing sequence can be read back
seed=$(( $(od -An -N2 -tu2 /dev/urandom) + 0 ))
echo "hb-vm-crash: $kills kills, seed $seed, backend $backend"
# rand K LO HI: a number in [LO, HI) for kill K, from the seed
rand() { awk -v s="$seed" -v k="$1" -v lo="$2" -v hi="$3" 'BEGIN { srand(s * 64 + k); printf "%.2f", lo + rand() * (hi - lo) }'; }
n=0 fails=0
tap() { # OK TEXT
	n=$((n + 1))
	if [ "$1" = 1 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}
wait_file() { # NAME: the workload's answer, 30 s at most
	i=0
	while [ ! -e "$W/$1" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "$W/$1" ]
}
kdamond_threads() { cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^kdamond'; }
# what the kernel holds of DAMON against what the running daemon owns
kcheck() { # WHEN
	nkd=$(cat $K/nr_kdamonds 2>/dev/null || echo 0)
	thr=$(kdamond_threads)
	if [ "$backend" = phys ]; then
		[ "$nkd" = 0 ] && [ "$thr" = 0 ] && return 0
		echo "hb-vm-crash: $1: phys, yet nr_kdamonds $nkd and $thr kdamond thread(s)" | tee -a $W/kfail
		return 1
	fi
	st=$(cat $K/0/state 2>/dev/null) pid=$(cat $K/0/pid 2>/dev/null)
	ctx=$(cat $K/0/contexts/nr_contexts 2>/dev/null)
	rec=$(sed -n 's/^kdamond_pid=//p' $STATE 2>/dev/null)
	# a new kdamond at each start: the dead run's, turned off, is not the one running
	prev=$lastpid
	lastpid=$pid
	[ "$nkd" = 1 ] && [ "$st" = on ] && [ "$ctx" = 1 ] && [ "$thr" = 1 ] && [ -n "$pid" ] &&
		[ "$pid" = "$rec" ] && [ "$pid" != "$prev" ] && return 0
	echo "hb-vm-crash: $1: nr_kdamonds $nkd, kdamond 0 $st pid $pid (the previous start's: $prev) with $ctx context(s), state file names '$rec', $thr kdamond thread(s)" | tee -a $W/kfail
	return 1
}
up() { # PID: the control socket answers (60 s at most), or the daemon is gone
	i=0
	until hotbridge stats --socket /tmp/hb/ctl.sock >/dev/null 2>&1; do
		kill -0 "$1" 2>/dev/null || return 1
		[ $i -lt 600 ] || return 1
		sleep 0.1; i=$((i + 1))
	done
}
start() { # K
	echo "=== start $1" >>/share/daemon.log
	hotbridge run --config /hbconf/hb.conf 2>>/share/daemon.log &
	daemon=$!
}
: >/share/daemon.log
/hb/hb-vmcrash "$node" "$pages" "$hot" "$phase" "$bound" $W "$kills" &
work=$!
# the fill and its pagemap read: as long as the workload lives (minutes on a loaded host)
while [ ! -e $W/ready ]; do
	kill -0 $work 2>/dev/null || { echo "hb-vm-crash: the workload did not get ready"; exit 31; }
	sleep 0.2
done
: >$W/go
t0=$(date +%s)
decoy=0 early=0 late=0 noup=0
k=1
while [ $k -le "$kills" ]; do
	start $k
	if awk -v x="$(rand $k 0 1)" 'BEGIN { exit !(x < 0.25) }'; then
		# the start-up
		d=$(rand $((k + 100)) 0 1.5)
		sleep "$d"
		kill -0 $daemon 2>/dev/null || { echo "hb-vm-crash: start $k exited by itself"; noup=$((noup + 1)); }
		kill -KILL $daemon 2>/dev/null
		wait $daemon 2>/dev/null
		echo "hb-vm-crash: kill $k: ${d} s after the start"
		early=$((early + 1))
	else
		if ! up $daemon; then
			echo "hb-vm-crash: start $k did not come up:"; tail -5 /share/daemon.log
			noup=$((noup + 1))
			kill -KILL $daemon 2>/dev/null; wait $daemon 2>/dev/null
			k=$((k + 1))
			continue
		fi
		kcheck "start $k" || fails=$((fails + 1))
		decoy=$((decoy + 1))
		: >$W/heat-$decoy
		wait_file heating-$decoy || echo "hb-vm-crash: the workload did not heat D$decoy"
		d=$(rand $((k + 200)) 0.3 3)
		sleep "$d"
		: >$W/cool-$decoy
		wait_file cooled-$decoy || echo "hb-vm-crash: the workload did not cool D$decoy"
		kill -KILL $daemon
		wait $daemon 2>/dev/null
		echo "hb-vm-crash: kill $k: ${d} s after it answered, D$decoy read"
		late=$((late + 1))
	fi
	k=$((k + 1))
done
t_kill=$(($(date +%s) - t0))
# the last restart: B must reach DRAM within the usual bound
start last
if ! up $daemon; then
	echo "hb-vm-crash: the last start did not come up:"; tail -20 /share/daemon.log
	kill $work; exit 32
fi
kcheck "the last start" || fails=$((fails + 1))
: >$W/last
wait_file phase-b || echo "hb-vm-crash: the workload did not start phase B"
while [ ! -e $W/done ]; do sleep 0.5; done
hotbridge stats --socket /tmp/hb/ctl.sock >/share/stats.json 2>&1
hotbridge sources --socket /tmp/hb/ctl.sock >/share/sources.json 2>&1
hotbridge status --socket /tmp/hb/ctl.sock >/share/status.json 2>&1
kill -TERM $daemon
wait $daemon
drc=$?
# the clean stop: nothing of DAMON left, no state file
nkd=$(cat $K/nr_kdamonds 2>/dev/null || echo 0)
thr=$(kdamond_threads)
clean=1
[ "$nkd" = 0 ] && [ "$thr" = 0 ] && [ ! -e $STATE ] || clean=0
: >$W/stopped
wait $work
wrc=$?
echo "hb-vm-crash: $kills kills in $t_kill s ($early in the start-up, $late running with a decoy hot)"
tap "$([ $noup = 0 ] && echo 1)" "each of the $((kills + 1)) starts came up (or was killed in its start-up, not ended by itself): $noup did not"
tap "$([ $fails = 0 ] && echo 1)" "after each start, the kernel held exactly the new daemon's DAMON state ($backend): $fails start(s) found otherwise"
tap "$([ $drc = 0 ] && echo 1)" "the last daemon stopped cleanly on SIGTERM (status $drc)"
tap "$([ $clean = 1 ] && echo 1)" "after its stop: nr_kdamonds $nkd, $thr kdamond thread(s), state file $([ -e $STATE ] && echo left || echo gone)"
grep -E "damon|kdamond" /share/daemon.log | sort | uniq -c | sort -rn | head -8 | sed 's/^/hb-vm-crash: log: /'
[ $wrc -eq 0 ] && [ $noup = 0 ] && [ $fails = 0 ] && [ $drc = 0 ] && [ $clean = 1 ]
