#!/usr/bin/env python3
"""Serial against partitioned runs on random scenarios (issue #15: "same answer,
any parallelism").

Generates small random scenarios that mix what the examples keep apart --
every topology type, mixed link delays and `sync_window`, both switch
architectures with RCM, every congestion control, lossy links, every fault,
both watchdogs, the deadlock detector, monitors, pcap captures, the HPCC
simulator's outputs, every traffic generator and collectives -- and runs each
as a user would: serially, with `--threads 2`, with `--threads 2 --partitions
P` (P from 3 to 5), with `--threads auto` (which no fabric may refuse), and
(with --mpirun-every) under `mpirun -n 2` (some with `--threads 2`) or
`mpirun -n 3`. Every results file must be
byte-identical to the serial run's (summary.json but for its `run` object).

A scenario the reader refuses (exit 2) is a bug in this generator and fails
the campaign; a partitioned run refused because the fabric cannot be cut that
way (too few switches, links shorter than the window) is counted and
skipped. A crash, a hang (--timeout) or any other exit status fails.

    tests/differential_runs.py --bin build/rocesim --count 500 --seed 7

Failing scenarios are kept under --keep (default ./differential-failures)
with the command lines that show the difference.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CDFS = ["websearch", "fb_hadoop", "datamining", "ali_storage_2019", "google_rpc_2008"]
CCS = ["none", "dcqcn", "timely", "dctcp", "hpcc", "ldcp"]
DELAYS = ["1us", "1us", "500ns", "2us", "300ns"]


class Topology:
    """A generated topology: its YAML block and the node ids faults can name."""

    def __init__(self, yaml, hosts, links, switches, gpus=1, files=None):
        self.yaml = yaml
        self.hosts = hosts
        self.links = links  # (a, b) node pairs joined by a link between switches or host-switch
        self.switches = switches
        self.gpus = gpus
        self.files = files or {}  # name -> text, written beside the scenario


def star(r):
    n = r.randint(3, 10)
    return Topology(f"type: star, hosts: {n}", n, [(h, n) for h in range(n)], 1)


def dumbbell(r):
    left, right = r.randint(1, 5), r.randint(1, 5)
    n = left + right
    a, b = n, n + 1
    links = [(h, a) for h in range(left)] + [(h, b) for h in range(left, n)] + [(a, b)]
    return Topology(f"type: dumbbell, hosts_left: {left}, hosts_right: {right}", n, links, 2)


def leaf_spine(r):
    leaves, spines, per_leaf = r.randint(2, 4), r.randint(1, 3), r.randint(1, 6)
    n = leaves * per_leaf
    links = [(h, n + h // per_leaf) for h in range(n)]
    links += [(n + l, n + leaves + s) for l in range(leaves) for s in range(spines)]
    extra = ""
    if r.random() < 0.3:
        extra = f", links_per_spine: {r.randint(2, 3)}"
    return Topology(
        f"type: leaf_spine, leaves: {leaves}, spines: {spines}, hosts_per_leaf: {per_leaf}{extra}",
        n, links, leaves + spines)


def fat_tree(r):
    k = 4
    n = k ** 3 // 4
    edges, aggs = n, n + k * k // 2
    cores = aggs + k * k // 2
    half = k // 2
    links = [(h, edges + h // half) for h in range(n)]
    for pod in range(k):
        for e in range(half):
            for a in range(half):
                links.append((edges + pod * half + e, aggs + pod * half + a))
        for a in range(half):
            for c in range(half):
                links.append((aggs + pod * half + a, cores + a * half + c))
    return Topology(f"type: fat_tree, k: {k}", n, links, k * k * 5 // 4)


def rail(r):
    gpus = r.choice([2, 4])
    groups = r.choice([1, 2])
    servers = groups * r.randint(1, 3)
    spines = r.randint(1, 3)
    n = servers * gpus
    return Topology(
        f"type: rail, servers: {servers}, gpus_per_server: {gpus}, "
        f"servers_per_rail_group: {servers // groups}, spines: {spines}",
        n, [], groups * gpus + spines, gpus)


def hpcc_file(r):
    """An irregular fabric in the HPCC simulator's topology format: a random
    tree of switches with a few extra (cycle-making) links, links of mixed
    rates and delays (now and then a zero-delay one, which a partitioned run
    must keep inside a partition or refuse), hosts on random switches."""
    switches, n = r.randint(2, 7), r.randint(3, 14)
    sw = list(range(n, n + switches))
    links = [(h, r.choice(sw)) for h in range(n)]
    for i in range(1, switches):
        links.append((sw[r.randrange(i)], sw[i]))
    for _ in range(r.randint(0, 2)):
        a, b = r.sample(sw, 2)
        if (a, b) not in links and (b, a) not in links:
            links.append((a, b))
    lines = []
    for a, b in links:
        rate = r.choice(["25Gbps", "40Gbps", "100Gbps", "100Gbps"])
        delay = r.choice(["1000ns", "500ns", "2000ns", "300ns"] + (["0ns"] if a >= n else []))
        lines.append(f"{a} {b} {rate} {delay} {r.choice(['0', '0', '0', '0.001'])}")
    text = (f"{n + switches} {switches} {len(links)}\n" + " ".join(map(str, sw)) + "\n" +
            "\n".join(lines) + "\n")
    return Topology("type: file, file: topology.txt", n, links, switches,
                    files={"topology.txt": text})


def topology_block(r):
    topo = r.choice([star, dumbbell, leaf_spine, leaf_spine, fat_tree, fat_tree, rail,
                     hpcc_file])(r)
    y = f"topology: {{{topo.yaml}"
    rate = r.choice(["100Gbps", "100Gbps", "40Gbps", "200Gbps"])
    # Now and then the hosts' links are slower or faster than the fabric's.
    host_rate = rate if r.random() < 0.7 else r.choice(["25Gbps", "100Gbps", "400Gbps"])
    if topo.files:
        pass  # the file gives every link's rate and delay
    else:
        y += f", host_link: {{rate: {host_rate}, delay: {r.choice(DELAYS)}}}"
        y += f", fabric_link: {{rate: {rate}, delay: {r.choice(DELAYS)}}}"
    if "fat_tree" in topo.yaml:
        y += f", core_link: {{rate: {rate}, delay: {r.choice(DELAYS)}}}"
    if r.random() < 0.1:
        y += f", ifg_bytes: {r.choice([0, 12])}"
    if r.random() < 0.2:
        y += f", sync_window: {r.choice(['auto', '1us', '500ns', '2us'])}"
    if r.random() < 0.15 and not topo.files:
        y += f", error_rate: {r.choice(['0.0005', '0.002'])}"
    if topo.gpus == 1 and r.random() < 0.15 and topo.hosts % 2 == 0:
        topo.gpus = 2
        y += ", gpus_per_server: 2"
    if topo.gpus > 1 and r.random() < 0.5:
        y += f", nvlink: {{rate: {r.choice(['900Gbps', '3.6Tbps'])}, latency: " \
             f"{r.choice(['200ns', '1us'])}}}"
    return topo, y + "}\n"


def switch_block(r, cc):
    cioq = r.random() < 0.25
    prios = r.choice([[3], [3], [3, 4], [2, 3, 5]])
    pfc = cc != "ldcp" and r.random() < 0.85
    y = "switch:\n"
    if cioq:
        y += "  architecture: cioq\n"
        y += "  cioq: {input_queue_bytes: 400KB, output_queue_bytes: 150KB}\n"
        if r.random() < 0.6:
            rcm = f"enabled: true, sar: {r.choice(['true', 'false'])}"
            if r.random() < 0.4:
                rcm += (f", q_eq: {r.choice(['10KB', '34KB'])}, cam_depth: {r.choice([4, 16])}, "
                        f"notify_max_ids: {r.choice([2, 16])}, remote_expiry: "
                        f"{r.choice(['20us', '100us'])}, sar_idle: {r.choice(['5us', '100us'])}, "
                        f"cam_min_hits: {r.choice([1, 2])}")
            y += f"  rcm: {{{rcm}}}\n"
    else:
        # Several lossless classes on fast, long links carve out more headroom
        # than a small buffer has (a refusal, not a run).
        y += f"  buffer: {r.choice(['2MB', '4MB', '12MB'] if len(prios) == 1 else ['16MB'])}\n"
        y += f"  alpha: {r.choice(['1/16', '1/2', '1'])}\n"
        if r.random() < 0.15:
            y += "  alpha_by_rate: [{rate: 100Gbps, alpha: 1/8}, {rate: 25Gbps, alpha: 1/32}]\n"
        if r.random() < 0.15:
            y += f"  reserved: {r.choice(['0KB', '8KB'])}\n"
    pfc_y = f"enabled: {str(pfc).lower()}, priorities: {prios}"
    if pfc and r.random() < 0.2:
        pfc_y += f", xon_offset: {r.choice(['1KB', '8KB'])}"
    if pfc and r.random() < 0.15:
        # Too little headroom (seed 003's buffer misconfiguration): lossless
        # frames can be dropped.
        pfc_y += f", headroom: {r.choice(['4KB', '40KB'])}"
    if pfc and r.random() < 0.1:
        pfc_y += f", quanta: {r.choice([100, 5000])}"
    y += f"  pfc: {{{pfc_y}}}\n"
    ecn = f"  ecn: {{enabled: true, kmin: {r.choice(['5KB', '20KB'])}, kmax: 200KB, pmax: 10%"
    ecn += f", mark_on: {r.choice(['dequeue', 'enqueue'])}"
    if r.random() < 0.15:
        ecn += ", by_rate: [{rate: 25Gbps, kmin: 2KB, kmax: 50KB, pmax: 20%}]"
    if cc == "ldcp":
        ecn += ", wred_drop: 100KB"
    if not cioq and r.random() < 0.1:
        ecn += ", buf_max: 300KB"
    y += ecn + "}\n"
    if r.random() < 0.15:
        y += "  strict_priorities: [6]\n  dwrr_weights: [1, 1, 4, 1, 2, 1, 1, 1]\n"
    if r.random() < 0.1:
        y += f"  ecmp_seed: {r.randint(1, 99)}\n"
    if r.random() < 0.3:
        y += ("  watchdog: {enabled: true, detect: 50us, restore: 100us, poll: 10us, "
              f"action: {r.choice(['drop', 'forward'])}}}\n")
    if not cioq and r.random() < 0.2:
        y += f"  unknown_unicast: {r.choice(['flood', 'drop'])}\n"
    return y, cioq, prios


def host_block(r, cc):
    y = f"host:\n  cc: {cc}\n"
    if r.random() < 0.15:
        y += f"  mtu: {r.choice(['512B', '4000B'])}\n"
    if r.random() < 0.15:
        y += "  rx_buffer: {size: 128KB, xoff: 64KB, xon: 32KB}\n"
    if r.random() < 0.3:
        y += f"  ack_every: {r.choice([2, 4])}\n  ack_delay: 5us\n"
    if r.random() < 0.2:
        y += "  window: bdp\n"
    if r.random() < 0.2:
        y += "  rto: 200us\n"
    if r.random() < 0.1:
        y += "  loss_recovery: go_back_0\n"
    if cc == "timely" and r.random() < 0.5:
        y += f"  timely: {{preset: {r.choice(['per_packet', 'patched'])}}}\n"
    if cc == "dcqcn" and r.random() < 0.5:
        y += "  dcqcn: {preset: hpcc-sim}\n"
    if cc == "hpcc" and r.random() < 0.5:
        y += "  hpcc: {int_bytes: 42}\n"
    if cc == "ldcp" and r.random() < 0.3:
        y += "  ldcp: {variant: event_api}\n  cnp_interval: 0\n"
    if cc == "dctcp" and r.random() < 0.3:
        y += "  dctcp: {mode: rate}\n"
    if r.random() < 0.15 and "cnp_interval" not in y:
        y += f"  cnp_interval: {r.choice(['0us', '4us'])}\n"
    if r.random() < 0.2:
        y += "  watchdog: {enabled: true, detect: 40us, restore: 80us, poll: 10us}\n"
    return y


def entry_extras(r, kind, entry, cc, prios, pfc):
    """Per-entry keys: a class (lossless or not), another congestion control,
    a start rate, an open-loop cap (`flows` entries take the first two per
    flow, and flow files give their own class)."""
    e = ""
    if r.random() < 0.3 and kind not in ("flows", "flow_file"):
        e += f", priority: {r.choice(prios + [0, 1])}"
    if r.random() < 0.15 and kind != "flows":
        e += f", cc: {r.choice([c for c in CCS if c != cc and (c != 'ldcp' or not pfc)])}"
    if r.random() < 0.1:
        e += f", max_rate: {r.choice(['10Gbps', '30Gbps'])}"
    if r.random() < 0.1 and "start_rate" not in entry:
        e += f", start_rate: {r.choice(['fair', '20Gbps'])}"
    return e


def dependency_file(r, n):
    """A CSV of flows that wait for flows at their own source host."""
    rows, flows = ["id,src,dst,size,depends_on,delay,start"], []
    for i in range(r.randint(2, 8)):
        src, dst = r.sample(range(n), 2)
        deps = [f"f{j}" for j, (a, b) in enumerate(flows) if src in (a, b) and r.random() < 0.6]
        rows.append(f"f{i},{src},{dst},{r.randint(1, 200)}KB,{';'.join(deps)},"
                    f"{r.choice(['', '5us', '0'])},{r.choice(['', '10us'])}")
        flows.append((src, dst))
    return "\n".join(rows) + "\n"


def flow_file(r, n):
    """The HPCC simulator's flow list: src dst pg dport size start_s."""
    lines = []
    for _ in range(r.randint(1, 8)):
        src, dst = r.sample(range(n), 2)
        lines.append(f"{src} {dst} 3 {r.randint(100, 200)} {r.randint(1000, 300000)} "
                     f"{r.randint(0, 80) * 1e-6:.9f}")
    return f"{len(lines)}\n" + "\n".join(lines) + "\n"


def simai_workload(r, n):
    """A SimAI workload file (src/workload/simai_workload.h) for a job on
    the first `gpus` of the n hosts, small enough to finish: a transformer
    loop over tensor-parallel groups of 1-4, or a DATA or MICRO loop, with
    expert-parallel comms now and then."""
    gpus = max(d for d in (2, 4, 6, 8) if d <= n)
    loop = r.choice(["HYBRID_TRANSFORMER_FWD_IN_BCKWD", "HYBRID_TRANSFORMER", "DATA", "MICRO"])
    # Data-parallel groups of two or more, and layer 0's weight-gradient
    # comm in them, so that every loop moves something (a job that moves
    # nothing is refused).
    tp = r.choice([t for t in (1, 2, 4) if gpus % t == 0 and gpus // t >= 2])
    ep = 2 if gpus // tp % 2 == 0 else 1
    comms = ["ALLREDUCE", "ALLGATHER", "REDUCESCATTER", "ALLTOALL", "NONE", "ALLREDUCE_DP_EP",
             "ALLTOALL_EP"]
    lines = []
    for i in range(r.randint(1, 4)):
        fields = [f"layer{i}", "-1"]
        for phase in range(3):
            comm = r.choice(comms[:4] if (i, phase) == (0, 2) else comms)
            fields += [str(r.randint(0, 3000)), comm,
                       "0" if comm == "NONE" else str(r.randint(1, 64) * 1024)]
        lines.append("\t".join(fields + ["100"]))
    head = (f"{loop} model_parallel_NPU_group: {tp} ep: {ep} pp: 1 vpp: 1 ga: 1 "
            f"all_gpus: {gpus} checkpoints: 0 checkpoint_initiates: 0 pp_comm: 0")
    return f"{head}\n{len(lines)}\n" + "\n".join(lines) + "\n"


def traffic_block(r, topo, cc, prios, pfc):
    n = topo.hosts
    entries = []
    for _ in range(r.randint(1, 3)):
        kind = r.choice(["flows", "incast", "poisson", "hotspot", "permutation", "all_to_all",
                         "microburst", "collective", "collective", "dependency_file",
                         "flow_file", "aicb_workload"])
        src, dst = r.sample(range(n), 2)
        size = f"{r.randint(1, 400)}KB"
        start = f"{r.randint(0, 50)}us"
        if kind == "flows":
            flows = []
            for _ in range(r.randint(1, 4)):
                s, d = r.sample(range(n), 2)
                flows.append(f"{{src: {s}, dst: {d}, size: {r.randint(1, 600)}KB, "
                             f"start: {r.randint(0, 80)}us}}")
            entries.append(f"  - {{type: flows, flows: [{', '.join(flows)}]}}")
        elif kind == "incast":
            senders = r.sample([h for h in range(n) if h != dst], min(n - 1, r.randint(1, 6)))
            e = (f"  - {{type: incast, receiver: {dst}, senders: {senders}, size: {size}, "
                 f"start: {start}")
            if r.random() < 0.3:
                e += ", period: 200us, count: 3"
            entries.append(e + "}")
        elif kind in ("poisson", "hotspot"):
            e = (f"  - {{type: {kind}, load: {r.choice(['20%', '40%', '60%'])}, "
                 f"cdf: {r.choice(CDFS)}, span: {r.choice(['50us', '100us', '200us'])}")
            if kind == "hotspot":
                e += ", hot_fraction: 30%, hot_hosts_fraction: 25%"
            if r.random() < 0.3:
                e += f", start_rate: {r.choice(['fair', '50Gbps'])}"
            entries.append(e + "}")
        elif kind == "permutation":
            entries.append(f"  - {{type: permutation, size: {size}, start: {start}}}")
        elif kind == "all_to_all":
            entries.append(f"  - {{type: all_to_all, size: {r.randint(1, 40)}KB}}")
        elif kind == "microburst":
            entries.append(f"  - {{type: microburst, src: {src}, dst: {dst}, start: {start}, "
                           f"duration: {r.choice(['5us', '20us'])}}}")
        elif kind == "dependency_file":
            name = f"deps{len(topo.files)}.csv"
            topo.files[name] = dependency_file(r, n)
            entries.append(f"  - {{type: dependency_file, file: {name}")
        elif kind == "aicb_workload":
            name = f"workload{len(topo.files)}.txt"
            topo.files[name] = simai_workload(r, n)
            e = (f"  - {{type: aicb_workload, file: {name}, iterations: {r.randint(1, 2)}, "
                 f"algorithm: {r.choice(['ring', 'tree'])}, channels: {r.choice([1, 2])}")
            if r.random() < 0.4:
                e += f", chunk: {r.choice(['16KB', '64KB'])}"
            entries.append(e)
        elif kind == "flow_file":
            name = f"flows{len(topo.files)}.txt"
            topo.files[name] = flow_file(r, n)
            entries.append(f"  - {{type: flow_file, file: {name}")
        else:
            e = collective(r, topo, len(entries))
            # Now and then a second job that follows this one rank by rank.
            if r.random() < 0.3:
                entries.append(e + "}")
                e = collective(r, topo, len(entries)) + \
                    f", after: job{len(entries) - 1}, after_compute: {r.choice(['0us', '5us'])}"
            entries.append(e)
        if not entries[-1].endswith("}"):
            entries[-1] += entry_extras(r, kind, entries[-1], cc, prios, pfc) + "}"
        else:
            entries[-1] = entries[-1][:-1] + entry_extras(r, kind, entries[-1], cc, prios,
                                                          pfc) + "}"
    return "traffic:\n" + "\n".join(entries) + "\n"


def collective(r, topo, index):
    ranks = topo.hosts
    ops = {"ring": ["allreduce", "allgather", "reducescatter", "broadcast"],
           "tree": ["allreduce"], "direct": ["alltoall", "allgather", "reducescatter"]}
    if ranks & (ranks - 1) == 0:
        ops["halving_doubling"] = ["allreduce", "allgather", "reducescatter"]
    if topo.gpus > 1:
        ops["hierarchical"] = ["allreduce"]
    algorithm = r.choice(sorted(ops))
    op = r.choice(ops[algorithm])
    channels = r.choice([1, 2])
    size = max(2 * channels * ranks, r.randint(16, 512) * 1000)
    e = (f"  - {{type: collective, tag: job{index}, op: {op}, algorithm: {algorithm}, "
         f"size: {size}, channels: {channels}, iterations: {r.randint(1, 2)}, compute: 10us")
    if r.random() < 0.4:
        e += f", chunk: {r.choice(['16KB', '64KB'])}"
    return e


def faults_block(r, topo, cioq):
    n = topo.hosts
    faults = []
    for _ in range(r.randint(0, 2)):
        kind = r.choice(["nic_pause_storm", "slow_receiver", "link_down", "packet_loss",
                         "mac_entry_loss"])
        at = r.randint(10, 150)
        if kind == "nic_pause_storm":
            faults.append(f"  - {{type: nic_pause_storm, host: {r.randrange(n)}, at: {at}us, "
                          f"until: {at + r.randint(20, 200)}us}}")
        elif kind == "slow_receiver":
            how = r.choice(["rate: 20Gbps", "period: 50us, stall: 20us"])
            faults.append(f"  - {{type: slow_receiver, host: {r.randrange(n)}, {how}, "
                          f"at: {at}us, until: {at + r.randint(50, 300)}us}}")
        elif kind == "link_down" and topo.links:
            a, b = r.choice(topo.links)
            f = f"  - {{type: link_down, a: {a}, b: {b}, at: {at}us"
            if r.random() < 0.7:
                f += f", until: {at + r.randint(20, 300)}us"
            faults.append(f + f", convergence: {r.choice(['0us', '5us'])}}}")
        elif kind == "packet_loss" and topo.links:
            a, b = r.choice(topo.links)
            how = r.choice(["every_nth: 50", "probability: 1%"])
            faults.append(f"  - {{type: packet_loss, a: {a}, b: {b}, {how}, at: {at}us, "
                          f"until: {at + 200}us}}")
        elif kind == "mac_entry_loss" and not cioq:  # the CIOQ switch has no MAC table
            faults.append(f"  - {{type: mac_entry_loss, host: {r.randrange(n)}, at: {at}us, "
                          f"until: {at + r.randint(20, 100)}us}}")
    return "faults:\n" + "\n".join(faults) + "\n" if faults else ""


def monitors_block(r, topo):
    y = ""
    if r.random() < 0.5:
        y += f"  interval: {r.choice(['2us', '5us', '10us'])}\n"
    if r.random() < 0.3:
        y += "  deadlock: {enabled: true, threshold: 40us, break: " + \
            r.choice(["false", "true"]) + "}\n"
    if r.random() < 0.2:
        host = r.randrange(topo.hosts)
        y += f"  pcap: {{ports: [{{node: {host}, port: 0}}], snaplen: 128}}\n"
    return "monitors:\n" + y if y else ""


def output_block(r):
    if r.random() < 0.2:
        return "output: {hpcc_compat: true, hpcc_qlen: {interval: 1us, dump_interval: 100us}}\n"
    return ""


def scenario(r, index):
    """The scenario's text and the files it names (name -> text)."""
    topo, y = topology_block(r)
    cc = r.choice(CCS)
    switch, cioq, prios = switch_block(r, cc)
    pfc = "pfc: {enabled: true" in switch
    text = (f"name: differential-{index}\nseed: {r.randint(1, 10000)}\n"
            f"duration: {r.choice(['300us', '600us', '1ms', '2ms'])}\n" + y + switch +
            host_block(r, cc) + traffic_block(r, topo, cc, prios, pfc) +
            faults_block(r, topo, cioq) + monitors_block(r, topo) + output_block(r))
    return text, topo.files


def differences(a, b):
    """The files that differ between results directories a and b."""
    def files(d):
        return sorted(str(p.relative_to(d)) for p in Path(d).rglob("*") if p.is_file())
    fa, fb = files(a), files(b)
    out = [f"only in one: {sorted(set(fa) ^ set(fb))}"] if fa != fb else []
    for name in sorted(set(fa) & set(fb)):
        x, y = Path(a, name).read_bytes(), Path(b, name).read_bytes()
        if name == "summary.json":
            jx, jy = json.loads(x), json.loads(y)
            jx.pop("run", None)
            jy.pop("run", None)
            if jx != jy:
                out.append(name)
        elif x != y:
            out.append(name)
    return out


# The partitioner's words for a fabric that cannot be cut as asked (exit 2).
UNCUTTABLE = "cannot cut the fabric into"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default="build/rocesim")
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mpirun-every", type=int, default=0,
                    help="also run every N-th scenario under mpirun, 2 or 3 ranks (0: never)")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per run")
    ap.add_argument("--keep", default="differential-failures")
    ap.add_argument("--print", action="store_true", help="print each scenario and stop")
    args = ap.parse_args()
    r = random.Random(args.seed)
    mpirun = ["mpirun", "--oversubscribe"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        mpirun.append("--allow-run-as-root")
    # Under the sanitizer pass (scripts/sanitize.sh) the ranks run without leak
    # checking, as in the C++ tests (tests/cli_test_support.h MpirunPrefix).
    if os.environ.get("ROCESIM_MPI_RANK_ASAN_OPTIONS"):
        mpirun += ["-x", "ASAN_OPTIONS=" + os.environ["ROCESIM_MPI_RANK_ASAN_OPTIONS"]]
    failures, skipped, ran = 0, 0, 0
    started = time.time()
    work = Path(tempfile.mkdtemp(prefix="rocesim-diff-"))
    # OpenMPI's session directory under a base of this campaign's own: made
    # in the shared default base, it fails an mpirun started at the instant
    # another (a ctest -j neighbour's) makes or removes it (as in
    # tests/cli_test_support.h MpiSessionBase).
    mpirun += ["--mca", "orte_tmpdir_base", str(work / "mpi")]
    try:
        for i in range(args.count):
            text, files = scenario(r, i)
            if args.print:
                print(f"# scenario {i}\n{text}" +
                      "".join(f"# {name}:\n{body}" for name, body in files.items()))
                continue
            case = work / str(i)
            case.mkdir()
            sc = case / "scenario.yaml"
            sc.write_text(text)
            for name, body in files.items():
                (case / name).write_text(body)
            # How the partitioned runs cut, from a stream of their own, so
            # that the scenarios do not depend on it: threads sharing 3-5
            # partitions; 2 ranks, 2 ranks of 2 threads, or 3 ranks.
            modes = random.Random(args.seed * 1_000_003 + i)
            # `--threads auto` takes what the fabric can be cut for (down to
            # a serial run): it is never refused.
            ways = [("serial", [], []), ("threads", [], ["--threads", "2"]),
                    ("shared", [], ["--threads", "2", "--partitions", str(modes.randint(3, 5))]),
                    ("auto", [], ["--threads", "auto"])]
            if args.mpirun_every and i % args.mpirun_every == 0:
                ranks, threads = modes.choice([(2, 1), (2, 1), (2, 2), (3, 1)])
                ways.append(("ranks", mpirun + ["-n", str(ranks)], ["--threads", str(threads)]))
            problems = []
            for way, launcher, extra in ways:
                cmd = launcher + [args.bin, "run", str(sc), "-q", "-o", str(case / way)] + extra
                try:
                    p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
                except subprocess.TimeoutExpired:
                    problems.append(f"{way}: no result in {args.timeout} s: {' '.join(cmd)}")
                    break
                err = p.stderr.strip()
                if way not in ("serial", "auto") and p.returncode == 2 and UNCUTTABLE in err:
                    skipped += 1
                    continue
                if p.returncode != 0:
                    problems.append(f"{way}: exit {p.returncode}: {' '.join(cmd)}\n{err[-2000:]}")
                    break
                if way != "serial":
                    diff = differences(case / "serial", case / way)
                    if diff:
                        problems.append(f"{way} differs from serial in {diff}: {' '.join(cmd)}")
            ran += 1
            if problems:
                failures += 1
                keep = Path(args.keep) / str(i)
                keep.parent.mkdir(parents=True, exist_ok=True)
                shutil.rmtree(keep, ignore_errors=True)
                shutil.copytree(case, keep)
                print(f"scenario {i}: FAILED ({keep})\n  " + "\n  ".join(problems), flush=True)
            shutil.rmtree(case, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not args.print:
        print(f"{ran} scenarios, {failures} failed, {skipped} partitioned runs refused as "
              f"uncuttable, {time.time() - started:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
