"""make test-netfs: the lock and publish protocol across two hosts sharing a
real network filesystem (docs/lock-protocol.md, "On a network filesystem").

Root only. An SFTP server and two "hosts" (network and UTS namespaces, each
with its own host name) joined by veth pairs; each host mounts the server's
export with sshfs, first with sshfs's default options, then with
-o dir_cache=no. Writers of both languages run inside a host's namespaces, so
their lock records carry that host's name. Every address lives in namespaces
made here; nothing leaves the machine. Prints one line per check and
"N passed, M failed"; exit 1 when a check failed. Where /dev/fuse or
`unshare --net` is missing, or sshfs and sshd cannot be installed, prints
"SKIPPED: <why>" and exits 0.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "python"))

from datarim_snapshot import validate_stage_snapshot  # noqa: E402
from datarim_snapshot._snapshot_writer import render_snapshot  # noqa: E402
from sample import STAMP, do_stage_writer  # noqa: E402

HOSTS = ("netfs-alpha", "netfs-beta")
SERVER = "netfs-server"
PORT = "2222"
WRITERS = 8  # per host
HOLDERS = 4  # per host, in the mutual-exclusion check
HOLDS = 40  # each
PACKAGES = ("openssh-server", "openssh-client", "sshfs", "fuse3", "faketime", "iproute2")
TOOLS = ("sshd", "ssh-keygen", "sshfs", "fusermount3", "faketime", "ip", "nsenter", "unshare")


def skipped(why: str) -> None:
    print(f"SKIPPED: {why}")
    raise SystemExit(0)


def run(*argv: str, check: bool = True, **kwargs: object) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(argv, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    if check and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {proc.returncode}: {proc.stderr.strip()}")
    return proc  # type: ignore[no-any-return]


def preflight() -> None:
    """Skips only where the machine lacks what no install gives: root, a usable
    /dev/fuse, network namespaces; installs the rest with apt when missing."""
    if os.geteuid() != 0:
        skipped("test-netfs needs root (network namespaces and FUSE mounts)")
    try:
        os.close(os.open("/dev/fuse", os.O_RDWR))
    except OSError as exc:
        skipped(f"no usable /dev/fuse ({exc.strerror})")
    if (
        shutil.which("unshare") is None
        or run("unshare", "--net", "--uts", "true", check=False).returncode
    ):
        skipped("unshare --net is not available here")
    missing = [
        tool for tool in TOOLS if not shutil.which(tool) and not os.path.exists(f"/usr/sbin/{tool}")
    ]
    if missing:
        if shutil.which("apt-get") is None:
            skipped(f"{', '.join(missing)} missing and no apt-get to install them")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        print(
            f"test-netfs: installing {' '.join(PACKAGES)} (missing: {', '.join(missing)})",
            flush=True,
        )
        update = run("apt-get", "update", "-qq", check=False, env=env)
        install = run(
            "apt-get",
            "install",
            "-y",
            "-qq",
            "--no-install-recommends",
            *PACKAGES,
            check=False,
            env=env,
        )
        if update.returncode or install.returncode:
            skipped(f"sshfs and sshd cannot be installed: {install.stderr.strip()[-300:]}")


class Net:
    """The server, the two hosts and their sshfs mounts; torn down by close()."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.export = work / "export"
        self.export.mkdir()
        self.procs: list[subprocess.Popen[bytes]] = []
        self.hosts: dict[str, int] = {}
        self.mounts: dict[str, Path] = {}
        self.server = 0

    def start(self) -> None:
        keys = self.work / "keys"
        keys.mkdir(mode=0o700)
        for name in ("host", "client"):
            run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(keys / name))
        shutil.copy(keys / "client.pub", keys / "authorized_keys")
        config = self.work / "sshd_config"
        config.write_text(
            f"Port {PORT}\nListenAddress 0.0.0.0\nHostKey {keys / 'host'}\n"
            f"AuthorizedKeysFile {keys / 'authorized_keys'}\nPermitRootLogin prohibit-password\n"
            "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n"
            "StrictModes no\nSubsystem sftp internal-sftp\nPidFile none\nLogLevel ERROR\n"
        )
        sshd = shutil.which("sshd") or "/usr/sbin/sshd"
        # The server: its own network, host name and /run (sshd's privilege
        # separation directory), sshd in the foreground as the holder.
        self.server = self.spawn(
            "unshare",
            "--net",
            "--uts",
            "--mount",
            "--propagation",
            "private",
            "--",
            "sh",
            "-c",
            f"mount -t tmpfs tmpfs /run && mkdir -p /run/sshd && "
            f"hostname {SERVER} 2>/dev/null; exec {sshd} -D -e -f {config}",
        )
        for index, host in enumerate(HOSTS, 1):
            pid = self.spawn("unshare", "--net", "--uts", "--", "sleep", "86400")
            self.hosts[host] = pid
            time.sleep(0.05)
            run(
                "nsenter",
                "-t",
                str(pid),
                "--uts",
                "--",
                "sh",
                "-c",
                f"printf %s {host} >/proc/sys/kernel/hostname",
            )
            here, there = f"vh{index}", f"vs{index}"
            run(
                "ip",
                "link",
                "add",
                here,
                "netns",
                str(pid),
                "type",
                "veth",
                "peer",
                "name",
                there,
                "netns",
                str(self.server),
            )
            for ns, dev, addr in (
                (pid, here, f"10.77.{index}.2/24"),
                (self.server, there, f"10.77.{index}.1/24"),
            ):
                run("nsenter", "-t", str(ns), "--net", "--", "ip", "addr", "add", addr, "dev", dev)
                run("nsenter", "-t", str(ns), "--net", "--", "ip", "link", "set", dev, "up")
                run("nsenter", "-t", str(ns), "--net", "--", "ip", "link", "set", "lo", "up")

    def spawn(self, *argv: str) -> int:
        proc = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        self.procs.append(proc)
        return proc.pid

    def mount(self, options: str) -> None:
        keys = self.work / "keys"
        for index, host in enumerate(HOSTS, 1):
            mnt = self.work / f"mnt-{host}"
            mnt.mkdir(exist_ok=True)
            opts = (
                f"IdentityFile={keys / 'client'},StrictHostKeyChecking=no,"
                "UserKnownHostsFile=/dev/null,BatchMode=yes,LogLevel=ERROR"
            )
            if options:
                opts += "," + options
            argv = (
                "nsenter",
                "-t",
                str(self.hosts[host]),
                "--net",
                "--",
                "sshfs",
                "-F",
                "/dev/null",
                "-p",
                PORT,
                f"root@10.77.{index}.1:{self.export}",
                str(mnt),
                "-o",
                opts,
            )
            for _ in range(50):  # sshd may still be starting
                proc = run(*argv, check=False)
                if proc.returncode == 0:
                    break
                time.sleep(0.2)
            else:
                raise RuntimeError(f"sshfs on {host}: {proc.stderr.strip()}")
            self.mounts[host] = mnt

    def unmount(self) -> None:
        for mnt in self.mounts.values():
            if run("fusermount3", "-u", str(mnt), check=False).returncode:
                run("umount", "-l", str(mnt), check=False)
        self.mounts = {}

    def close(self) -> None:
        self.unmount()
        for proc in self.procs:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


class Checks:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, name: str, ok: bool, detail: str = "") -> bool:
        if ok:
            self.passed += 1
            print(f"ok    {name}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL  {name}: {detail}", flush=True)
        return ok


class Suite:
    """The checks, run once per mount option set."""

    def __init__(self, net: Net, checks: Checks, label: str) -> None:
        self.net = net
        self.checks = checks
        self.label = label
        self.python = sys.executable
        self.scratch = Path(tempfile.mkdtemp(prefix="local-", dir=net.work))
        self.serial = 0

    def fresh(self) -> str:
        """A new workspace directory on the export; its name."""
        self.serial += 1
        name = f"ws-{self.label}-{self.serial}"
        (self.net.export / name / "datarim").mkdir(parents=True)
        (self.net.export / name / "datarim" / "tasks.md").write_text("# Tasks\n")
        return name

    def on(
        self, host: str, argv: list[str], env: dict[str, str] | None = None, skew: str = ""
    ) -> subprocess.Popen[bytes]:
        """Starts argv inside host's UTS namespace (its host name), optionally
        with a clock that runs <skew> ahead (faketime)."""
        prefix = ["nsenter", "-t", str(self.net.hosts[host]), "--uts", "--"]
        if skew:
            prefix += ["faketime", "-f", skew]
        full_env = {**os.environ, **(env or {})}
        return subprocess.Popen(
            prefix + argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=full_env,
            start_new_session=True,
        )

    def writer(self, impl: str, root: Path, task: str, body: Path) -> list[str]:
        return do_stage_writer(impl, root, body, task)

    def body(self, text: str) -> tuple[Path, bytes]:
        self.serial += 1
        path = self.scratch / f"body-{self.serial}.md"
        data = text.encode()
        path.write_bytes(data)
        return path, data

    def expected(self, task: str, data: bytes) -> bytes:
        return render_snapshot(task, "do", "/dr-do", "agent", "/dr-qa", STAMP, None, data)

    def name(self, what: str) -> str:
        return f"[{self.label}] {what}"

    def leftovers(self, ws: str) -> list[str]:
        """Locks and temp files left in a workspace's snapshots, as the server sees them."""
        snapshots = self.net.export / ws / "datarim" / "snapshots"
        return sorted(n for n in os.listdir(snapshots) if n.startswith((".lock.", ".tmp.")))

    def writers(self, tasks: Callable[[int], str], timeout: str = "150") -> None:
        """WRITERS writers per host, bash and Python alternating, tasks(n) the
        task of the n-th; all must land whole, with nothing on stderr."""
        ws = self.fresh()
        wants: dict[str, set[bytes]] = {}
        procs = []
        began = time.monotonic()
        for n in range(WRITERS * len(HOSTS)):
            host = HOSTS[n % 2]
            impl = ("bash", "python")[(n // 2) % 2]
            task = tasks(n)
            path, data = self.body(f"writer {n} ({impl} on {host}) line\n" * (n * 30 + 1))
            wants.setdefault(task, set()).add(self.expected(task, data))
            root = self.net.mounts[host] / ws
            procs.append(
                (
                    host,
                    impl,
                    self.on(
                        host,
                        self.writer(impl, root, task, path),
                        {"DR_SNAPSHOT_LOCK_TIMEOUT": timeout},
                    ),
                )
            )
        bad = []
        for host, impl, proc in procs:
            _, err = proc.communicate(timeout=300)
            if proc.returncode != 0 or err:
                bad.append(
                    f"{impl}@{host} exit {proc.returncode} {err.decode(errors='replace').strip()!r}"
                )
        took = time.monotonic() - began
        what = "one task" if len(wants) == 1 else f"{len(wants)} tasks"
        self.checks.check(
            self.name(
                f"{len(procs)} writers ({WRITERS} a host, bash and Python) on {what}: "
                f"all exit 0, nothing on stderr ({took:.1f} s)"
            ),
            not bad,
            "; ".join(bad[:4]),
        )
        snapshots = self.net.export / ws / "datarim" / "snapshots"
        wrong = []
        for task, versions in wants.items():
            path = snapshots / f"{task}.snapshot.md"
            try:
                if path.read_bytes() not in versions:
                    wrong.append(f"{task}: not one whole write")
                validate_stage_snapshot(task, str(self.net.export / ws))
            except Exception as exc:  # noqa: BLE001 - reported as a failed check
                wrong.append(f"{task}: {exc}")
        left = self.leftovers(ws)
        self.checks.check(
            self.name(f"{what}: every snapshot one whole write, valid; no lock or temp file left"),
            not wrong and not left,
            "; ".join(wrong[:4]) + f" left={left}",
        )

    def exclusion(self) -> None:
        """HOLDERS holders per host of both languages take one lock HOLDS times
        each; a local marker directory and start/end times prove no overlap."""
        ws = self.fresh()
        log = self.scratch / "holds.log"
        marker = self.scratch / "inside"
        procs = []
        for n in range(HOLDERS * len(HOSTS)):
            host = HOSTS[n % 2]
            lock = self.net.mounts[host] / ws / "datarim" / ".lock.TUNE-0300"
            if (n // 2) % 2:
                argv = [self.python, str(REPO / "tests" / "netfs" / "hold.py")]
            else:
                argv = [str(REPO / "tests" / "netfs" / "hold.sh")]
            argv += [str(lock), "200", str(HOLDS), str(marker), str(log)]
            procs.append((host, self.on(host, argv)))
        bad = []
        for host, proc in procs:
            _, err = proc.communicate(timeout=600)
            if proc.returncode != 0 or err:
                bad.append(
                    f"{host} exit {proc.returncode} {err.decode(errors='replace').strip()!r}"
                )
        lines = log.read_text().splitlines() if log.exists() else []
        spans: list[tuple[float, float]] = []
        opened: dict[str, float] = {}
        violations = [line for line in lines if line.startswith("VIOLATION")]
        for line in lines:
            kind, _, rest = line.partition(" ")
            stamp, _, who = rest.partition(" ")
            if kind == "start":
                opened[who] = float(stamp)
            elif kind == "end":
                spans.append((opened.pop(who), float(stamp)))
        spans.sort()
        overlaps = sum(1 for a, b in zip(spans, spans[1:]) if b[0] < a[1])
        total = HOLDERS * len(HOSTS) * HOLDS
        hosts = {line.split()[2] for line in lines if line.startswith("start")}
        self.checks.check(
            self.name(
                f"mutual exclusion: {len(spans)} holds by {HOLDERS * 2} "
                f"holders on 2 hosts, none overlapping"
            ),
            not bad
            and not violations
            and overlaps == 0
            and len(spans) == total
            and hosts == set(HOSTS),
            f"{'; '.join(bad[:3])} violations={violations[:3]} "
            f"overlaps={overlaps} holds={len(spans)}/{total} hosts={hosts}",
        )

    def killed_holder(self) -> None:
        """A holder SIGKILLed on one host: the other host waits it out (exit 3,
        the lock left alone); a writer on the same host recovers it at once."""
        for impl in ("bash", "python"):
            ws = self.fresh()
            alpha, beta = HOSTS
            (self.net.export / ws / "datarim" / "snapshots").mkdir(mode=0o700)
            if impl == "bash":
                probe = [str(REPO / "tests" / "probes" / "lock-probe.sh")]
            else:
                probe = [self.python, str(REPO / "tests" / "probes" / "lock_probe.py")]
            lock = self.net.mounts[alpha] / ws / "datarim" / "snapshots" / ".lock.TUNE-0301"
            holder = self.on(alpha, [*probe, str(lock), "30", "3600", "-"])
            assert holder.stdout is not None
            line = holder.stdout.readline()
            os.killpg(holder.pid, signal.SIGKILL)
            holder.communicate()
            owner = self.net.export / ws / "datarim" / "snapshots" / ".lock.TUNE-0301" / "owner"
            record = owner.read_bytes() if owner.exists() else b""
            self.checks.check(
                self.name(f"{impl} holder on {alpha} killed holding the lock"),
                line == b"held\n" and f"host={alpha}\n".encode() in record,
                f"{line!r} {record!r}",
            )
            results: dict[str, tuple[int, str, float, bytes]] = {}
            still = b""
            for host, other_impl, timeout in (
                (beta, "python" if impl == "bash" else "bash", "3"),
                (alpha, impl, "60"),
            ):
                path, data = self.body(f"after the kill, from {host}\n")
                began = time.monotonic()
                proc = self.on(
                    host,
                    self.writer(other_impl, self.net.mounts[host] / ws, "TUNE-0301", path),
                    {"DR_SNAPSHOT_LOCK_TIMEOUT": timeout},
                )
                _, raw = proc.communicate(timeout=120)
                results[host] = (
                    proc.returncode,
                    raw.decode(errors="replace").strip(),
                    time.monotonic() - began,
                    data,
                )
                if host == beta:
                    still = owner.read_bytes() if owner.exists() else b""
            code, err, took, _ = results[beta]
            self.checks.check(
                self.name(
                    f"{beta} waits for {alpha}'s dead {impl} holder: exit 3 "
                    f"after {took:.1f} s, its lock untouched"
                ),
                code == 3
                and "lock busy" in err
                and err.count("\n") == 0
                and took >= 3
                and still == record,
                f"exit {code} {err!r} took {took:.1f} record {still!r}",
            )
            code, err, took, data = results[alpha]
            target = self.net.export / ws / "datarim" / "snapshots" / "TUNE-0301.snapshot.md"
            landed = target.read_bytes() if target.exists() else b""
            self.checks.check(
                self.name(
                    f"{alpha} recovers its own dead {impl} holder's lock at once ({took:.1f} s)"
                ),
                code == 0
                and not err
                and took < 5
                and landed == self.expected("TUNE-0301", data)
                and not self.leftovers(ws),
                f"exit {code} {err!r} took {took:.1f} left={self.leftovers(ws)}",
            )

    def ownerless(self) -> None:
        """A lock without an owner file, made on one host, is claimed from the
        other after the grace (2 s)."""
        alpha, beta = HOSTS
        for impl in ("bash", "python"):
            ws = self.fresh()
            snapshots = self.net.mounts[alpha] / ws / "datarim" / "snapshots"
            snapshots.mkdir(mode=0o700)
            (snapshots / ".lock.TUNE-0302").mkdir(mode=0o700)
            path, data = self.body(f"claimed by {impl} on {beta}\n")
            began = time.monotonic()
            proc = self.on(
                beta,
                self.writer(impl, self.net.mounts[beta] / ws, "TUNE-0302", path),
                {"DR_SNAPSHOT_LOCK_TIMEOUT": "60"},
            )
            _, err = proc.communicate(timeout=120)
            took = time.monotonic() - began
            target = self.net.export / ws / "datarim" / "snapshots" / "TUNE-0302.snapshot.md"
            landed = target.read_bytes() if target.exists() else b""
            self.checks.check(
                self.name(
                    f"an ownerless lock made on {alpha} is claimed by {impl} "
                    f"on {beta} after the grace ({took:.1f} s)"
                ),
                proc.returncode == 0
                and not err
                and took >= 2
                and landed == self.expected("TUNE-0302", data)
                and not self.leftovers(ws),
                f"exit {proc.returncode} {err!r} took {took:.1f} left={self.leftovers(ws)}",
            )

    def clock_ahead(self) -> None:
        """beta's clock runs two days ahead: its writers of other tasks delete
        nothing of alpha's, neither a live temp file nor a write in progress."""
        alpha, beta = HOSTS
        ws = self.fresh()
        snapshots = self.net.export / ws / "datarim" / "snapshots"
        # A live writer's temp file on alpha (fresh by the server's clock).
        (self.net.mounts[alpha] / ws / "datarim" / "snapshots").mkdir(mode=0o700)
        live = self.net.mounts[alpha] / ws / "datarim" / "snapshots" / ".tmp.TUNE-0399.4242.1"
        live.write_bytes(b"a live writer's temp file\n")
        procs = []
        wants = {}
        for n in range(6):
            host = (alpha, beta)[n % 2]
            impl = ("bash", "python")[(n // 2) % 2]
            task = f"TUNE-04{n:02d}"
            for round_ in range(4):
                path, data = self.body(f"round {round_} of {task} ({impl} on {host})\n" * 200)
                wants[task] = self.expected(task, data)
                procs.append(
                    (
                        host,
                        task,
                        impl,
                        self.on(
                            host,
                            self.writer(impl, self.net.mounts[host] / ws, task, path),
                            {"DR_SNAPSHOT_LOCK_TIMEOUT": "60"},
                            skew="+2d" if host == beta else "",
                        ),
                    )
                )
        bad = []
        for host, task, impl, proc in procs:
            _, err = proc.communicate(timeout=300)
            if proc.returncode != 0 or err:
                bad.append(
                    f"{impl}@{host} {task} exit {proc.returncode} "
                    f"{err.decode(errors='replace').strip()!r}"
                )
        live_seen = snapshots / live.name
        self.checks.check(
            self.name(
                f"{beta}'s clock two days ahead: every write on both hosts "
                f"lands, {alpha}'s live temp file stays"
            ),
            not bad and live_seen.exists(),
            f"{'; '.join(bad[:4])} live temp file there: {live_seen.exists()}",
        )


def main() -> int:
    preflight()
    checks = Checks()
    work = Path(tempfile.mkdtemp(prefix="datarim-netfs-"))
    net = Net(work)
    began = time.monotonic()
    try:
        try:
            net.start()
        except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
            # The machine has what it takes (preflight): a set-up that fails is a failure.
            checks.check("set-up: the SFTP server and two hosts", False, str(exc))
            return finish(checks, began)
        for label, options in (("default", ""), ("dir_cache=no", "dir_cache=no")):
            try:
                net.mount(options)
            except RuntimeError as exc:
                checks.check(f"[{label}] sshfs mounts on both hosts", False, str(exc))
                continue
            shown = "-o " + options if options else "default options"
            print(f"test-netfs: two hosts on sshfs ({shown})", flush=True)
            suite = Suite(net, checks, label)
            suite.writers(lambda n: "TUNE-0254")
            suite.writers(lambda n: f"TUNE-02{n:02d}")
            suite.exclusion()
            suite.killed_holder()
            suite.ownerless()
            suite.clock_ahead()
            net.unmount()
    finally:
        net.close()
        shutil.rmtree(work, ignore_errors=True)
    return finish(checks, began)


def finish(checks: Checks, began: float) -> int:
    print(f"test-netfs: {time.monotonic() - began:.0f} s")
    print(f"{checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
