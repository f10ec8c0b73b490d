#!/bin/sh
# PID 1 of the User-Mode Linux guest (see run-in-guest.sh). The root filesystem is the host's,
# read-only (hostfs). Gives the guest /proc, /sys, /dev, tmpfs /run and /dev/shm, an overlay
# /tmp (the host's /tmp below, the guest's writes in guest RAM above), and a pure cgroup v2
# hierarchy with `nsdelegate` and memory, pids and cpu enabled for children (what current
# distributions mount), then runs the command file and powers off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
mount -t proc proc /proc
run= umldir=
for a in $(cat /proc/cmdline); do
  case $a in vmrun=*) run=${a#vmrun=} ;; umldir=*) umldir=${a#umldir=} ;; esac
done
mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts /dev/pts
mount -t tmpfs -o mode=1777,nosuid,nodev shm /dev/shm
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin; ln -sf /proc/self/fd/1 /dev/stdout; ln -sf /proc/self/fd/2 /dev/stderr
mount -t tmpfs -o mode=755,nosuid,nodev run /run
mkdir -p /run/vm/out /run/vm/ov
# The only host directory the guest can write: where stdout, stderr and the exit code go.
mount -t hostfs -o "$run/out" hostfs /run/vm/out
exec 2>>/run/vm/out/init.log
mount -t tmpfs -o mode=755 ov /run/vm/ov && mkdir /run/vm/ov/u /run/vm/ov/w && chmod 1777 /run/vm/ov/u
# The kernel's overlayfs is a module of the package; finit_module(2) (313 on x86_64) loads it
# without kmod, which the host may not have.
overlay_ko=$umldir/usr/lib/uml/modules/$(uname -r)/kernel/fs/overlayfs/overlay.ko
if python3 -c 'import ctypes, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
sys.exit(ctypes.CDLL(None, use_errno=True).syscall(313, fd, b"", 0) != 0)' "$overlay_ko" &&
   mount -t overlay -o lowerdir=/tmp,upperdir=/run/vm/ov/u,workdir=/run/vm/ov/w overlay /tmp; then :
else
  echo "no overlayfs: /tmp is an empty tmpfs" >&2
  mount -t tmpfs -o mode=1777 tmp /tmp
fi
# No v1 hierarchy at all: every cgroup role must come from here.
mount -t cgroup2 -o nsdelegate cgroup2 /sys/fs/cgroup
echo "+memory +pids +cpu" > /sys/fs/cgroup/cgroup.subtree_control
echo "guest: $(uname -r), uptime at command $(cut -d' ' -f1 /proc/uptime) s" >&2
/bin/bash "$run/cmd" </dev/null >/run/vm/out/stdout 2>/run/vm/out/stderr
echo $? > /run/vm/out/rc
sync
# No init system here: reboot(2) with LINUX_REBOOT_CMD_POWER_OFF ends the UML process.
exec python3 -c 'import ctypes; ctypes.CDLL(None).reboot(0x4321FEDC)'
